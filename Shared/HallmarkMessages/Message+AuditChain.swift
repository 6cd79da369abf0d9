import HallmarkCore
import HallmarkCrypto

extension Message where Body == AuditRecord {
    /// `record` as a message about request `requestID` (the command or request that caused
    /// it), hashed.
    public init(
        chaining record: AuditRecord, id: MessageID, producedAt: Timestamp = .now(), requestID: MessageID?
    ) throws(JSONCodingError) {
        self.init(record, id: id, producedAt: producedAt, requestID: requestID)
        body.hash = try computedHash()
    }

    /// The bytes `hash` covers: every member but the envelope's transport members and `hash`.
    public func chainedBytes() throws(JSONCodingError) -> [UInt8] {
        try CanonicalSigning.bytes(of: self, without: AuditRecord.unchained)
    }

    /// SHA-256 of ``chainedBytes()``, hex.
    public func computedHash() throws(JSONCodingError) -> String { Hex.encode(SHA256Hash.digest(try chainedBytes())) }

    /// The position of the first record that breaks the chain (edited, inserted, deleted or
    /// out of order), or nil when `records` (sorted by sequence, from 1) is intact.
    public static func firstBreak(in records: [Self]) -> Int? {
        var previous = AuditRecord.genesisHash
        for (i, r) in records.enumerated() {
            guard r.sequence == UInt64(i + 1), r.previousHash == previous, (try? r.computedHash()) == r.hash else { return i }
            previous = r.hash
        }
        return nil
    }
}
