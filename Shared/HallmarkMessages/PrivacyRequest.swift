import Foundation
import HallmarkCore
import HallmarkCrypto

/// `hallmark.privacy.request.v1`: an operator's export or erase request for one subject
/// (`hallmark.privacy.requests`), read by every service. Signed with an operator Ed25519 key:
/// the signature covers the canonical JSON of the whole message, envelope included, without
/// `signature` (``OperatorSignature``).
public struct PrivacyRequest: MessageBody, Hashable {
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

    public var action: Action
    public var subjectType: SubjectType
    /// The serial, partner id or session id.
    public var subject: String
    /// Why (a ticket, say); recorded in the audit trail.
    public var reason: String?
    /// The operator key that signed.
    public var keyID: String
    /// b64 of the Ed25519 signature (``OperatorSignature``).
    public var signature: String

    /// An unsigned request (see ``Message/signed(keyID:seed:)``).
    public init(action: Action, subjectType: SubjectType, subject: String, reason: String? = nil) {
        self.action = action
        self.subjectType = subjectType
        self.subject = subject
        self.reason = reason
        keyID = ""
        signature = ""
    }

    enum CodingKeys: String, CodingKey {
        case action, subject, reason, signature
        case subjectType = "subject_type"
        case keyID = "key_id"
    }
}
