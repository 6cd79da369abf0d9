import Foundation

/// A C2SP tlog-checkpoint note text: `<origin>\n<tree size>\n<b64 root hash>\n`, then any
/// extension lines. Hallmark writes none; it reads them and keeps them, so a note it did not
/// write is reproduced byte for byte.
public struct CheckpointText: Sendable, Hashable {
    /// The log's identity, e.g. `birthmark.example.org/log`.
    public var origin: String
    /// Number of leaves.
    public var treeSize: UInt64
    /// The RFC 6962 root at `treeSize` (32 bytes).
    public var rootHash: Data
    /// Extension lines, without their newlines.
    public var extensions: [String]

    /// A checkpoint; `invalid_argument` for an origin that is empty or not one line,
    /// `invalid_length` unless the root is 32 bytes.
    public init(origin: String, treeSize: UInt64, rootHash: Data, extensions: [String] = []) throws(HallmarkCryptoError) {
        guard !origin.isEmpty, !origin.contains("\n") else {
            throw HallmarkCryptoError(.invalidArgument, "an origin is one non-empty line")
        }
        guard rootHash.count == 32 else { throw HallmarkCryptoError(.invalidLength, "a root hash is 32 bytes") }
        guard extensions.allSatisfy({ !$0.isEmpty && !$0.contains("\n") }) else {
            throw HallmarkCryptoError(.invalidArgument, "extension lines are non-empty lines")
        }
        self.origin = origin
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// The note text.
    public var text: String {
        ([origin, String(treeSize), Base64.encode(rootHash)] + extensions).map { $0 + "\n" }.joined()
    }

    /// Parses a note text; `malformed_note` unless it is a checkpoint.
    public init(parsing text: String) throws(HallmarkCryptoError) {
        guard text.hasSuffix("\n") else { throw HallmarkCryptoError.malformedNote("a checkpoint ends in a newline") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, lines.allSatisfy({ !$0.isEmpty }) else {
            throw HallmarkCryptoError.malformedNote("a checkpoint has an origin, a size and a root, on non-empty lines")
        }
        guard let size = UInt64(lines[1]), String(size) == lines[1] else {
            throw HallmarkCryptoError.malformedNote("the tree size is decimal without leading zeroes")
        }
        guard let root = try? Base64.decode(lines[2], length: 32), Base64.encode(root) == lines[2] else {
            throw HallmarkCryptoError.malformedNote("the root hash is the base64 of 32 bytes")
        }
        try self.init(origin: lines[0], treeSize: size, rootHash: root, extensions: Array(lines.dropFirst(3)))
    }
}
