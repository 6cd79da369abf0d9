import Foundation
import HallmarkCore
import HallmarkCrypto

/// Message identifiers.
public enum MessageID {
    /// A fresh random UUID, lowercase.
    public static func random() -> String { UUID().lowercasedText }

    /// A UUID derived from an input message id and an output's name, so that re-processing a
    /// redelivered message produces the same output ids and consumers can drop the duplicates.
    /// (Version 8, SHA-256 based.)
    public static func derived(from inputID: String, _ name: String) -> String {
        version8(SHA256Hash.digest(Array("hallmark-output:\(inputID):\(name)".utf8)))
    }

    /// A version 8 UUID, lowercase, from the first 16 bytes of `digest` (a hash or a MAC of at
    /// least 16 bytes), with the version and variant bits set.
    public static func version8(_ digest: some Collection<UInt8>) -> String {
        var bytes = Array(digest.prefix(16))
        precondition(bytes.count == 16, "a version 8 UUID needs 16 bytes")
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.lowercasedText
    }
}
