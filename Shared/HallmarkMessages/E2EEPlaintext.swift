/// `hallmark.e2ee.plaintext.v1`: the gateway's answer to an inbound message: the counter and
/// the plaintext, or one reason and never any plaintext.
public struct E2EEPlaintext: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.plaintext.v1"

    /// `decrypted` or `rejected`.
    public enum Status: String, Codable, Sendable { case decrypted, rejected }

    /// Why an inbound message was refused.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// A counter not above the last accepted one.
        case replay
        /// A counter 1000 or more ahead of the last accepted one.
        case counterJump = "counter_jump"
        /// Wrong key or tag.
        case authenticationFailed = "authentication_failed"
        /// No such session, or expired or closed.
        case unknownSession = "unknown_session"
        case unsupportedVersion = "unsupported_version"
        case malformed
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
    }

    public var sessionID: String
    public var status: Status
    /// The message's counter (decrypted; a rejection may name it too).
    public var counter: UInt64?
    /// The plaintext, base64 (decrypted only).
    public var plaintextB64: String?
    public var reason: Reason?

    /// A decrypted message.
    public init(
        sessionID: String,
        counter: UInt64, plaintextB64: String
    ) {
        self.sessionID = sessionID
        status = .decrypted
        self.counter = counter
        self.plaintextB64 = plaintextB64
    }

    /// A refused message.
    public init(
        sessionID: String,
        reason: Reason, counter: UInt64? = nil
    ) {
        self.sessionID = sessionID
        status = .rejected
        self.reason = reason
        self.counter = counter
    }

    enum CodingKeys: String, CodingKey {
        case status, counter, reason
        case sessionID = "session_id"
        case plaintextB64 = "plaintext_b64"
    }
}
