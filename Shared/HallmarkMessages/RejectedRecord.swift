import Foundation
import HallmarkCrypto

/// A message a stage could not process, as published to `hallmark.rejected`
/// (schema `hallmark.rejected.v1`). Nothing is dropped: the original bytes travel along while
/// the record fits the broker's limit; a larger original is described by its SHA-256, its
/// size and its first 4 KiB instead (`original_truncated: true`).
public struct RejectedRecord: MessageBody, Equatable {
    public static let schemaName = "hallmark.rejected.v1"
    /// How much of an original too large to carry is kept.
    public static let truncatedPrefixBytes = 4096

    /// Where the rejected message was read.
    public struct Source: Codable, Sendable, Equatable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public init(topic: String, partition: Int32, offset: Int64) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
        }
    }

    public var service: String
    public var instance: String
    public var reason: RejectionReason
    /// What was wrong, naming fields but never their values.
    public var detail: String
    public var source: Source
    /// The message's own `id`, when it had a readable one.
    public var originalID: MessageID?
    /// The original bytes, b64 — only their first 4 KiB when `originalTruncated`.
    public var originalB64: String
    /// The original's size in bytes.
    public var originalSize: Int
    /// SHA-256 of the whole original, hex.
    public var originalSHA256: String
    /// True when `original_b64` holds only a prefix.
    public var originalTruncated: Bool

    /// A record carrying `original` whole, or as much of its start as fits (at most
    /// ``truncatedPrefixBytes``) when the whole would make the record larger than `limit` bytes;
    /// with `copiesOriginal` false, only its digest and size (a body may identify a device).
    public init(
        service: String, instance: String, reason: RejectionReason,
        detail: String, source: Source, originalID: MessageID?, original: [UInt8], limit: Int,
        copiesOriginal: Bool = true
    ) {
        self.service = service
        self.instance = instance
        self.reason = reason
        let detail = Self.fit(detail)
        self.detail = detail
        self.source = source
        self.originalID = originalID
        originalSize = original.count
        originalSHA256 = Hex.encode(SHA256Hash.digest(original))
        // The record around the original is small (well under 2 KiB): keep the original whole
        // when its base64 leaves room for it.
        let room = limit - Self.overhead(detail: detail, service: service, instance: instance, topic: source.topic)
        originalTruncated = !copiesOriginal || (original.count + 2) / 3 * 4 > room
        let prefix = copiesOriginal ? min(Self.truncatedPrefixBytes, max(0, room / 4 * 3)) : 0
        originalB64 = Data(originalTruncated ? original.prefix(prefix) : original[...]).base64EncodedString()
    }

    /// The longest `detail` the schema allows.
    public static let maxDetailLength = 1024

    /// `detail` as the schema allows it: control characters become spaces, and it ends after
    /// ``maxDetailLength`` characters.
    static func fit(_ detail: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in detail.unicodeScalars.prefix(maxDetailLength) {
            let v = scalar.value
            scalars.append(v < 0x20 || (0x7F...0x9F).contains(v) ? " " : scalar)
        }
        return String(scalars)
    }

    /// A generous bound on everything in the record except `original_b64`.
    static func overhead(detail: String, service: String, instance: String, topic: String) -> Int {
        1024 + 2 * (detail.utf8.count + service.utf8.count + instance.utf8.count + topic.utf8.count)
    }

    enum CodingKeys: String, CodingKey {
        case service, instance, reason, detail, source
        case originalID = "original_id"
        case originalB64 = "original_b64"
        case originalSize = "original_size"
        case originalSHA256 = "original_sha256"
        case originalTruncated = "original_truncated"
    }
}
