/// A `required` rule's names, checked without hashing or retaining them.
///
/// `oneOf` alternatives tell a message's layouts apart by their required members, so this runs
/// several times per message. Looking each name up in the message hashed it and retained the
/// shared name from every validating thread; counting the message's members that the list
/// names compares them in place.
final class RequiredNames: Sendable {
    /// The names, each once.
    let names: [String]

    init(_ names: [String]) { self.names = names.uniqued() }

    /// The index in ``names`` of the first name `members` lacks, or nil when it has them all.
    func missing(from members: [String: JSONValue]) -> Int? {
        var present = 0
        for name in members.keys where contains(name) { present += 1 }
        guard present < names.count else { return nil }
        // Only on the way to a failure.
        for i in names.indices where members[names[i]] == nil { return i }
        return nil
    }

    private func contains(_ name: String) -> Bool {
        for i in names.indices where names[i] == name { return true }
        return false
    }
}
