import Foundation

/// A C2SP tlog-policy: the logs trusted, the witnesses known (with their URLs, for a log that
/// asks them to cosign) and the quorum that makes a checkpoint "witnessed".
///
/// ```
/// log <vkey> [<url>]
/// witness <name> <vkey> [<url>]
/// group <name> all|any|<k> <name>...
/// quorum <name>|none
/// ```
public struct TransparencyPolicy: Sendable, Hashable {
    /// A witness the policy names.
    public struct Witness: Sendable, Hashable {
        /// The policy's name for it (not its key name).
        public var name: String
        /// Its cosignature key (type 0x04).
        public var key: NoteVerifierKey
        /// Its submission prefix, when given.
        public var url: String?
    }

    /// A group: satisfied when at least `threshold` of its members are.
    public struct Group: Sendable, Hashable {
        public var name: String
        public var threshold: Int
        public var members: [String]
    }

    /// The logs accepted.
    public var logs: [NoteVerifierKey] = []
    /// The witnesses known.
    public var witnesses: [Witness] = []
    /// The groups defined.
    public var groups: [Group] = []
    /// The witness or group that must be satisfied; nil for `quorum none`.
    public var quorum: String?

    public init() {}

    /// Parses a policy file; `invalid_argument` naming the line at fault.
    public static func parse(_ text: String) throws(HallmarkCryptoError) -> TransparencyPolicy {
        var policy = TransparencyPolicy()
        var names = Set<String>()
        var quorumSeen = false
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let keyword = words.first, !keyword.hasPrefix("#") else { continue }
            func fail(_ reason: String) -> HallmarkCryptoError {
                HallmarkCryptoError(.invalidArgument, "policy line \(number + 1): \(reason)")
            }
            switch keyword {
            case "log":
                guard (2...3).contains(words.count), let key = try? NoteVerifierKey(parsing: words[1]) else {
                    throw fail("'log <vkey> [<url>]'")
                }
                guard !policy.logs.contains(where: { $0.publicKey == key.publicKey }) else { throw fail("a log listed twice") }
                policy.logs.append(key)
            case "witness":
                guard (3...4).contains(words.count), let key = try? NoteVerifierKey(parsing: words[2]),
                    key.algorithm == .cosignatureV1
                else {
                    throw fail("'witness <name> <cosignature vkey (type 0x04)> [<url>]'")
                }
                guard words[1] != "none", names.insert(words[1]).inserted else { throw fail("the name \(words[1]) is taken") }
                guard !policy.witnesses.contains(where: { $0.key.publicKey == key.publicKey }) else {
                    throw fail("a witness listed twice")
                }
                policy.witnesses.append(Witness(name: words[1], key: key, url: words.count == 4 ? words[3] : nil))
            case "group":
                guard words.count >= 4 else { throw fail("'group <name> all|any|<k> <member>...'") }
                let members = Array(words[3...])
                guard Set(members).count == members.count, members.allSatisfy({ names.contains($0) }) else {
                    throw fail("members are distinct witnesses or groups defined above")
                }
                let threshold: Int
                switch words[2] {
                case "all": threshold = members.count
                case "any": threshold = 1
                default:
                    guard let k = Int(words[2]), (1...members.count).contains(k) else { throw fail("k is 1 to the members") }
                    threshold = k
                }
                guard words[1] != "none", names.insert(words[1]).inserted else { throw fail("the name \(words[1]) is taken") }
                policy.groups.append(Group(name: words[1], threshold: threshold, members: members))
            case "quorum":
                guard words.count == 2, !quorumSeen, words[1] == "none" || names.contains(words[1]) else {
                    throw fail("one 'quorum <defined name>|none'")
                }
                quorumSeen = true
                policy.quorum = words[1] == "none" ? nil : words[1]
            default:
                throw fail("unknown keyword \(keyword)")
            }
        }
        guard quorumSeen else { throw HallmarkCryptoError(.invalidArgument, "a policy needs a quorum line") }
        return policy
    }

    /// Whether the witnesses named in `cosigned` (policy names) satisfy the quorum.
    public func isSatisfied(by cosigned: Set<String>) -> Bool {
        guard let quorum else { return true }
        return satisfied(quorum, cosigned)
    }

    private func satisfied(_ name: String, _ cosigned: Set<String>) -> Bool {
        guard let group = groups.first(where: { $0.name == name }) else { return cosigned.contains(name) }
        return group.members.filter { satisfied($0, cosigned) }.count >= group.threshold
    }

    /// The policy's witnesses whose cosignatures on `note` verify.
    public func cosigners(of note: SignedNote) -> Set<String> {
        Set(witnesses.filter { (try? note.verified(by: [$0.key])) != nil }.map(\.name))
    }
}
