import HallmarkMessages

/// DESIGN.md §2's provenance rule over a submission's hashes:
/// - a level-0 hash (the raw capture) has no parent, and a submission holds at most one: a
///   token authenticates one capture, and derived images name it as their ancestor;
/// - a hash of level ≥ 1 names a parent that is a hash of lower level in the same submission
///   or a hash already in the log (checked by the intake against the log, see ``external``);
/// - no hash is its own parent;
/// - levels go up to ``maxLevel``, as the Birthmark reference's registry allows (0 raw,
///   1 processed, 2 modified).
/// A submission that breaks it is answered `rejected` / `invalid_provenance`.
struct Provenance: Sendable {
    /// The highest modification level logged.
    static let maxLevel = 2

    /// A parent outside the submission: the log must hold it at a level below `level`.
    struct External: Sendable, Hashable {
        let parent: String
        let level: Int
    }

    /// False when the submission's own hashes break the rule.
    let isValid: Bool
    /// The parents the log must hold (empty when not valid).
    let external: [External]

    init(_ entries: [Submission.ImageHash]) {
        // The lowest level at which each hash appears in the submission.
        var levels: [String: Int] = [:]
        for entry in entries { levels[entry.imageHash] = min(levels[entry.imageHash] ?? .max, entry.modificationLevel) }
        var external: [External] = []
        var valid = entries.filter { $0.modificationLevel == 0 }.count <= 1
        for entry in entries where valid {
            switch (entry.modificationLevel, entry.parentImageHash) {
            case (0, nil):
                continue
            case (1...Self.maxLevel, let parent?) where parent != entry.imageHash:
                if let level = levels[parent] {
                    valid = level < entry.modificationLevel
                } else {
                    external.append(External(parent: parent, level: entry.modificationLevel))
                }
            default:
                valid = false
            }
        }
        isValid = valid
        self.external = valid ? external : []
    }

    /// Whether the log's leaves (each parent's logged level, by hex hash) satisfy the external
    /// parents.
    func holds(in logged: [String: Int]) -> Bool {
        external.allSatisfy { e in logged[e.parent].map { $0 < e.level } ?? false }
    }
}
