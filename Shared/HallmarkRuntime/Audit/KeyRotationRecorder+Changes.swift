extension KeyRotationRecorder {
    /// One difference between the keys last recorded and those held now.
    public struct Change: Sendable, Equatable {
        /// The record's reason code.
        public enum Reason: String, Sendable {
            /// A key id not seen before (every key, the first time).
            case keyAdded = "key_added"
            /// A key id no longer held: what it sealed must have been re-sealed before.
            case keyRemoved = "key_removed"
            /// The same id with another value.
            case keyReplaced = "key_replaced"
            /// Another key is now the one in use.
            case currentKeyChanged = "current_key_changed"
        }
        public var keyID: String
        public var reason: Reason
    }

    /// The changes from `seen` (id → check value, current or not) to `now`, in a stable order:
    /// removals, additions and replacements by id, then the change of current key.
    public static func changes(from seen: [String: (checkValue: String, isCurrent: Bool)], to now: KeySet) -> [Change] {
        var changes: [Change] = []
        for id in seen.keys.sorted() where now.checkValues[id] == nil {
            changes.append(Change(keyID: id, reason: .keyRemoved))
        }
        for (id, check) in now.checkValues.sorted(by: { $0.key < $1.key }) {
            guard let old = seen[id] else { changes.append(Change(keyID: id, reason: .keyAdded)); continue }
            if old.checkValue != check { changes.append(Change(keyID: id, reason: .keyReplaced)) }
        }
        if seen[now.current]?.isCurrent != true {
            changes.append(Change(keyID: now.current, reason: .currentKeyChanged))
        }
        return changes
    }
}
