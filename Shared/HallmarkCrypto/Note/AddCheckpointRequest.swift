import Foundation

/// The body of a C2SP tlog-witness `add-checkpoint` request: `old <size>\n`, up to 63
/// consistency proof lines (b64 hashes), a blank line, then the checkpoint note.
public struct AddCheckpointRequest: Sendable, Hashable {
    /// The size of the checkpoint the client believes the witness last cosigned.
    public var oldSize: UInt64
    /// The RFC 6962 consistency proof from `oldSize` to the checkpoint's size.
    public var proof: [Data]
    /// The checkpoint, with the log's signature (and perhaps others).
    public var checkpoint: SignedNote

    /// The most bytes a request may have.
    public static let maxSize = SignedNote.maxSize + 64 * 46

    public init(oldSize: UInt64, proof: [Data], checkpoint: SignedNote) {
        self.oldSize = oldSize
        self.proof = proof
        self.checkpoint = checkpoint
    }

    /// The request's text.
    public var formatted: String {
        "old \(oldSize)\n" + proof.map { Base64.encode($0) + "\n" }.joined() + "\n" + checkpoint.formatted
    }

    /// Parses a request body; `malformed_note` unless it is one (a 400).
    public static func parse(_ bytes: some DataProtocol) throws(HallmarkCryptoError) -> AddCheckpointRequest {
        guard bytes.count <= maxSize, let text = String(validating: Array(bytes), as: UTF8.self),
            let split = text.range(of: "\n\n")
        else {
            throw HallmarkCryptoError.malformedNote("a request is an old size line, proof lines, a blank line and a checkpoint")
        }
        var lines = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)[...]
        let old = try NoteLines.number(lines.popFirst(), keyword: "old")
        let proof = try NoteLines.hashes(lines)
        return AddCheckpointRequest(
            oldSize: old, proof: proof, checkpoint: try SignedNote.parse(Array(text[split.upperBound...].utf8)))
    }
}
