/// `hallmark.security.event.v1` on `hallmark.security`, shared by every service: replays,
/// tampered tokens, blacklisted devices, abuse thresholds, admin actions and refused admin
/// commands, bad MACs, partners and sessions past their rejection rate, replayed, jumped and
/// tampered E2EE-1 messages, tampered ENC-1 envelopes. Carries codes and counts, never a
/// key, secret, token, MAC, NUC hash, header or payload.
///
/// The request an event is about is its header's `request_id`. No event carries both a device
/// identity (`device_serial`) and a `request_id` (DESIGN §2):
/// the aggregator chooses token request ids and must not link a submission to a camera by
/// reading this topic. The schema refuses such an event.
public struct SecurityEvent: MessageBody, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.security.event.v1"

    /// Event kinds.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case tokenRejected = "token_rejected"
        case replayedToken = "replayed_token"
        case abuseWarning = "abuse_warning"
        case abuseBlacklisted = "abuse_blacklisted"
        case deviceBlacklisted = "device_blacklisted"
        case deviceUnblacklisted = "device_unblacklisted"
        case tableRetired = "table_retired"
        case kekRotation = "kek_rotation"
        /// The signer: one partner's rejections passed the configured rate.
        case rejectionRate = "rejection_rate"
        /// The authority refused an admin command (`reason`: `unsigned_command`, `unknown_key`,
        /// `bad_signature`, `stale_command` or `schema_violation`).
        case adminCommandRejected = "admin_command_rejected"
        /// The signer: a request's MAC did not verify (per partner and window, up to a limit).
        case badMAC = "bad_mac"
        /// The signer: a request was a replay (per partner and window, up to a limit).
        case replayedRequest = "replayed_request"
        /// The signer: `count` events of one partner (or, without `partner_id`, of partners
        /// past the service-wide limit) were not sent in the window that just ended.
        case eventsSuppressed = "events_suppressed"
        /// The gateway: an E2EE-1 inbound message whose counter was not above the session's
        /// last accepted one.
        case replayedMessage = "replayed_message"
        /// The gateway: an E2EE-1 inbound counter 1,000 or more ahead of the last accepted one.
        case counterJump = "counter_jump"
        /// The gateway: an E2EE-1 inbound message that failed authentication (wrong key or tag).
        case tamperedMessage = "tampered_message"
        /// The gateway: an ENC-1 envelope to decrypt that failed authentication.
        case tamperedPayload = "tampered_payload"
        /// A privacy request (`hallmark.privacy.requests`) was refused (`reason`:
        /// `unsigned_request`, `unknown_key`, `bad_signature`, `stale_request` or `malformed`).
        case privacyRequestRejected = "privacy_request_rejected"
        /// Any stage: a message id already used for other bytes or on another topic of the
        /// service (not a redelivery); `request_id` is the id, `reason` the topic relation.
        case idReused = "id_reused"
        /// A signed admin command or privacy request sent again (same signature) after it was
        /// answered; `reason` is `replayed_command`, or `stale_command` past the window.
        case replayedCommand = "replayed_command"
    }

    /// `info`, `warning` or `critical`.
    public enum Severity: String, Codable, Sendable { case info, warning, critical }

    public var service: String
    public var instance: String
    public var event: Kind
    public var severity: Severity
    public var reason: String?
    public var deviceSerial: String?
    public var tableId: Int?
    public var count: Int?
    /// The partner a rate event is about.
    public var partnerID: String?
    /// The window a rate or count covers.
    public var windowSeconds: Int?
    /// The operator key an admin command named.
    public var keyID: String?
    /// The E2EE-1 session a gateway event is about.
    public var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case service, instance, event, severity, reason, count
        case deviceSerial = "device_serial"
        case tableId = "table_id"
        case partnerID = "partner_id"
        case windowSeconds = "window_seconds"
        case keyID = "key_id"
        case sessionID = "session_id"
    }

    /// Creates an event.
    public init(
        service: String, instance: String, event: Kind, severity: Severity,
        reason: String? = nil, deviceSerial: String? = nil, tableId: Int? = nil,
        count: Int? = nil, partnerID: String? = nil, windowSeconds: Int? = nil, keyID: String? = nil,
        sessionID: String? = nil
    ) {
        self.service = service
        self.instance = instance
        self.event = event
        self.severity = severity
        self.reason = reason
        self.deviceSerial = deviceSerial
        self.tableId = tableId
        self.count = count
        self.partnerID = partnerID
        self.windowSeconds = windowSeconds
        self.keyID = keyID
        self.sessionID = sessionID
    }
}
