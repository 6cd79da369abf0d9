import HallmarkCore

extension Message {
    /// The message as `encode(to:)` writes it, from its body already written as `members`: the
    /// header's members set directly beside the body's (a body has no member of the header's
    /// names; four strings need no encoder). For a writer that needs the body's tree anyway,
    /// to derive an id from it or to check it, so the body is encoded once.
    package func written(body members: [String: JSONValue]) -> JSONValue {
        var members = members
        members["schema"] = .string(header.schema)
        members["id"] = .string(header.id.text)
        members["produced_at"] = .string(header.producedAt.text)
        members["correlation_id"] = header.correlationID.map(JSONValue.string)
        return .object(members)
    }
}
