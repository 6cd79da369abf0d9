import Foundation

/// A C2SP tlog-proof file (`.tlog-proof`): an entry's index, its RFC 6962 inclusion proof and
/// the signed checkpoint it is proved against, with optional opaque extra data. What a photo's
/// owner keeps beside the photo and checks offline with only the log's vkey.
///
/// ```
/// c2sp.org/tlog-proof@v1
/// extra <b64>            (optional)
/// index <N>
/// <b64 hash per line>
///
/// <signed checkpoint note>
/// ```
public struct TransparencyProof: Sendable, Hashable {
    /// The first line.
    public static let header = "c2sp.org/tlog-proof@v1"

    /// Opaque, unauthenticated extra data (Hallmark puts the 73-byte log leaf here).
    public var extra: Data?
    /// The entry's zero-based index.
    public var index: UInt64
    /// The audit path, leaf's sibling first.
    public var inclusionProof: [Data]
    /// The checkpoint, signed by the log and perhaps cosigned by witnesses.
    public var checkpoint: SignedNote

    public init(extra: Data? = nil, index: UInt64, inclusionProof: [Data], checkpoint: SignedNote) {
        self.extra = extra
        self.index = index
        self.inclusionProof = inclusionProof
        self.checkpoint = checkpoint
    }

    /// The file's text.
    public var formatted: String {
        var lines = [Self.header]
        if let extra { lines.append("extra " + Base64.encode(extra)) }
        lines.append("index \(index)")
        lines += inclusionProof.map { Base64.encode($0) }
        return lines.map { $0 + "\n" }.joined() + "\n" + checkpoint.formatted
    }

    /// Parses a proof file; `malformed_note` unless it is one.
    public static func parse(_ bytes: some DataProtocol) throws(HallmarkCryptoError) -> TransparencyProof {
        guard bytes.count <= SignedNote.maxSize + 4096, let text = String(validating: Array(bytes), as: UTF8.self),
            let split = text.range(of: "\n\n")
        else {
            throw HallmarkCryptoError.malformedNote("a tlog proof is a header, an index, hashes, a blank line and a checkpoint")
        }
        var lines = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.popFirst() == Substring(header) else {
            throw HallmarkCryptoError.malformedNote("the first line is \(header)")
        }
        var extra: Data?
        if let line = lines.first, line.hasPrefix("extra ") {
            guard let bytes = try? Base64.decode(String(line.dropFirst(6))) else {
                throw HallmarkCryptoError.malformedNote("the extra line is base64")
            }
            extra = bytes
            lines.removeFirst()
        }
        let index = try NoteLines.number(lines.popFirst(), keyword: "index")
        let proof = try NoteLines.hashes(lines)
        let checkpoint = try SignedNote.parse(Array(text[split.upperBound...].utf8))
        return TransparencyProof(extra: extra, index: index, inclusionProof: proof, checkpoint: checkpoint)
    }
}
