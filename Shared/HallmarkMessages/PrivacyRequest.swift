import Foundation
import HallmarkCore
import HallmarkCrypto

/// `hallmark.privacy.request.v1`: an operator's export or erase request for one subject
/// (`hallmark.privacy.requests`), read by every service. Signed with an operator Ed25519 key:
/// the signature covers the canonical JSON of the request without `signature`.
public struct PrivacyRequest: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.privacy.request.v1"

    /// `export` or `erase`.
    public enum Action: String, Codable, Sendable, CaseIterable { case export, erase }

    /// What kind of subject the request names.
    public enum SubjectType: String, Codable, Sendable, CaseIterable {
        /// A camera (authority, aggregator).
        case deviceSerial = "device_serial"
        /// A SmileID partner (signer, gateway).
        case partnerID = "partner_id"
        /// An E2EE session (gateway).
        case sessionID = "session_id"
    }

    public var schema = PrivacyRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var action: Action
    public var subjectType: SubjectType
    /// The serial, partner id or session id.
    public var subject: String
    /// Why (a ticket, say); recorded in the audit trail.
    public var reason: String?
    /// The operator key that signed.
    public var keyID: String
    /// Ed25519 over ``signingBytes()``, base64 (64 bytes).
    public var signature: String

    /// A request signed with the operator's Ed25519 `seed`.
    public init(
        id: String, producedAt: String, action: Action, subjectType: SubjectType, subject: String,
        reason: String? = nil, keyID: String, seed: some DataProtocol, correlationID: String? = nil,
        replyTo: String? = nil
    ) throws {
        self.id = id
        self.producedAt = producedAt
        self.action = action
        self.subjectType = subjectType
        self.subject = subject
        self.reason = reason
        self.keyID = keyID
        self.correlationID = correlationID
        self.replyTo = replyTo
        signature = ""
        signature = Base64.encode(try Ed25519.sign(try signingBytes(), seed: seed))
    }

    /// A request before it is signed (an operator key file signs it).
    public struct Unsigned: Sendable {
        public var id: String
        public var producedAt: String
        public var action: Action
        public var subjectType: SubjectType
        public var subject: String
        public var reason: String?

        public init(
            id: String, producedAt: String, action: Action, subjectType: SubjectType, subject: String,
            reason: String? = nil
        ) {
            self.id = id
            self.producedAt = producedAt
            self.action = action
            self.subjectType = subjectType
            self.subject = subject
            self.reason = reason
        }
    }

    /// The bytes the signature covers: the canonical JSON without `signature`.
    public func signingBytes() throws(JSONCodingError) -> [UInt8] {
        try CanonicalSigning.bytes(of: self, without: [CodingKeys.signature.rawValue])
    }

    /// Whether `publicKey` (the key configured for `key_id`) signed exactly this request.
    public func verify(publicKey: some DataProtocol) -> Bool {
        guard let signature = try? Base64.decode(signature, length: 64), let bytes = try? signingBytes() else { return false }
        return Ed25519.verify(signature: signature, message: bytes, publicKey: publicKey)
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, action, subject, reason, signature
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case subjectType = "subject_type"
        case keyID = "key_id"
    }
}
