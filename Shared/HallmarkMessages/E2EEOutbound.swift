import HallmarkCrypto

/// `hallmark.e2ee.outbound.v1`: the encrypted gateway-to-client message to deliver, or one
/// reason it could not be made.
public struct E2EEOutbound: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.outbound.v1"

    /// `encrypted` or `rejected`.
    public enum Status: String, Codable, Sendable { case encrypted, rejected }

    /// Why a message could not be encrypted.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// No such session, or expired or closed.
        case unknownSession = "unknown_session"
        /// The gateway-to-client counter reached its maximum.
        case counterExhausted = "counter_exhausted"
        case malformed
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
    }

    public var sessionID: String
    public var status: Status
    /// The wire message (encrypted only).
    public var message: InvisoWireMessage?
    public var reason: Reason?

    /// An encrypted message.
    public init(
        sessionID: String,
        message: InvisoWireMessage
    ) {
        self.sessionID = sessionID
        status = .encrypted
        self.message = message
    }

    /// A refusal.
    public init(
        sessionID: String,
        reason: Reason
    ) {
        self.sessionID = sessionID
        status = .rejected
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case status, message, reason
        case sessionID = "session_id"
    }
}
