import Foundation
import HallmarkCore
import HallmarkCrypto

extension LogVerifyResult {
    /// The C2SP tlog-proof of a `found` answer whose checkpoint carries its signed note: the
    /// BM-LOG leaf as the extra data, the leaf index, the inclusion proof and the note. Nil for
    /// any other answer. Not checked here (``check(publicKey:imageHash:earlier:)``,
    /// `TransparencyProof.verify` do).
    public func tlogProof() throws -> TransparencyProof? {
        guard status == .found, let record, let index = leafIndex, let note = checkpoint?.note else { return nil }
        return TransparencyProof(
            extra: try BirthmarkLogLeaf(
                imageHash: Hex.decode(record.imageHash, length: 32), timestamp: record.timestamp,
                modificationLevel: UInt8(record.modificationLevel),
                parentHash: record.parentImageHash.map { try Hex.decode($0, length: 32) }
            ).bytes, index: index, inclusionProof: try (inclusionProof ?? []).map { try Hex.decode($0, length: 32) },
            checkpoint: try SignedNote.parse(Array(note.utf8)))
    }
}
