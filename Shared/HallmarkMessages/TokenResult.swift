import HallmarkCore

/// `hallmark.token.result.v1`: PASS (`valid: true`) or FAIL with one reason. Nothing else:
/// never the device, its serial or its NUC hash.
public struct TokenResult: HallmarkMessage, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.token.result.v1"

    public var schema = TokenResult.schemaName
    public var id: String
    public var producedAt: String
    public var correlationId: String
    public var requestId: String
    public var valid: Bool
    public var reason: ValidationReason?

    enum CodingKeys: String, CodingKey {
        case schema, id, valid, reason
        case producedAt = "produced_at"
        case correlationId = "correlation_id"
        case requestId = "request_id"
    }

    /// Creates a result.
    public init(id: String, producedAt: String, requestId: String, correlationId: String? = nil, reason: ValidationReason?) {
        self.id = id
        self.producedAt = producedAt
        self.correlationId = correlationId ?? requestId
        self.requestId = requestId
        self.valid = reason == nil
        self.reason = reason
    }

    /// The message bytes: the same as `JSONCoding.encode(self)` (a test holds them equal),
    /// written directly because a verdict is produced for every validation.
    public var jsonBytes: [UInt8] {
        var members: [String: JSONValue] = [
            "schema": .string(schema), "id": .string(id), "produced_at": .string(producedAt),
            "correlation_id": .string(correlationId), "request_id": .string(requestId), "valid": .bool(valid),
        ]
        if let reason { members["reason"] = .string(reason.rawValue) }
        return JSONWriter.write(.object(members))
    }
}
