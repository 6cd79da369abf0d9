import Foundation
import HallmarkCore
import HallmarkCrypto

/// A message's `id`: a UUID, with its text exactly as written (either case), which an answer
/// carries back as its `request_id`. Hallmark writes its own ids in lower case.
public struct MessageID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The id as written.
    public let text: String
    /// Its value (an inbox row or a pending request is keyed by it).
    public let uuid: UUID

    /// `text` when it is a UUID in its 36-character form; nil otherwise.
    public init?(_ text: String) {
        guard let uuid = UUID(text: text) else { return nil }
        self.text = text
        self.uuid = uuid
    }

    /// `uuid`, written in lower case.
    public init(_ uuid: UUID) {
        text = uuid.lowercasedText
        self.uuid = uuid
    }

    public var description: String { text }

    /// A fresh random id.
    public static func random() -> MessageID { MessageID(UUID()) }

    /// An id derived from an input message's id and an output's name, so that re-processing a
    /// redelivered message produces the same output ids and consumers can drop the duplicates.
    /// (Version 8, SHA-256 based, over the input id as written.)
    public static func derived(from input: MessageID, _ name: String) -> MessageID {
        derived(from: input.text, name)
    }

    /// The same from any text that names the output's source (a checkpoint's key and size, say).
    public static func derived(from input: String, _ name: String) -> MessageID {
        var text = "hallmark-output:\(input):\(name)"
        return version8(text.withUTF8 { SHA256Hash.digest(bytes: UnsafeRawBufferPointer($0)) })
    }

    /// A version 8 UUID from the first 16 bytes of `digest` (a hash or a MAC of at least 16
    /// bytes), with the version and variant bits set.
    public static func version8(_ digest: some Collection<UInt8>) -> MessageID {
        var bytes = Array(digest.prefix(16))
        precondition(bytes.count == 16, "a version 8 UUID needs 16 bytes")
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return MessageID(
            UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )))
    }

    /// Reads a UUID string; anything else is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let id = MessageID(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a UUID")
        }
        self = id
    }

    /// Writes the text as it was read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
