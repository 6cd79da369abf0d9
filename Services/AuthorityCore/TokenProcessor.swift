import Foundation
import HallmarkCrypto
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

/// The token-validation stage: PASS or FAIL with one reason, and nothing else.
///
/// Order: malformed → unknown_table → authentication_failed (opening) → replayed_token →
/// unknown_device → table_not_assigned → blacklisted. The device is found through the NUC
/// hash the token decrypts to (its keyed blind index), so neither an image hash nor a device
/// id ever reaches the authority.
///
/// It runs without a per-message transaction: master keys are in memory, devices come from
/// a bounded cache, replay records are written in batches (``ReplayLedger``) and counts are
/// flushed once a second (``ValidationCounter``). Redelivery is safe without the runtime's
/// inbox: the replay record holds the message id, so the same message is judged the same way
/// again and its answer (same derived id) is the same.
public struct TokenProcessor: StageProcessor {
    public let schemas: Set<String> = [TokenResult.requestSchema]
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let tables: KeyTableStore
    let devices: DeviceDirectory
    let ledger: ReplayLedger
    let counter: ValidationCounter
    let pool: PostgresPool
    let metrics: AuthorityMetrics
    let events: AuthorityEvents

    /// Creates the processor.
    public init(configuration: AuthorityConfiguration, secrets: AuthoritySecrets, tables: KeyTableStore,
                devices: DeviceDirectory, ledger: ReplayLedger, counter: ValidationCounter, pool: PostgresPool,
                metrics: AuthorityMetrics, instance: String) {
        self.configuration = configuration
        self.secrets = secrets
        self.tables = tables
        self.devices = devices
        self.ledger = ledger
        self.counter = counter
        self.pool = pool
        self.metrics = metrics
        events = AuthorityEvents(topic: configuration.securityTopic, instance: instance, metrics: metrics)
    }

    var schema: String { configuration.schema }

    public func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        let start = ContinuousClock.now
        var security: [StageOutput] = []
        let reason = try await judge(message, security: &security)
        metrics.record(reason)
        let elapsed = (ContinuousClock.now - start).components
        metrics.validationTime.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        let result = TokenResult(id: MessageID.derived(from: message.header.id, "token-result"),
                                 producedAt: Timestamp.now(), requestId: message.header.id, reason: reason)
        let key = message.kafka.key.map { String(decoding: $0, as: UTF8.self) }
        return [try .json(topic: configuration.tokenOutput, key: key, result)] + security
    }

    private func judge(_ message: StageMessage, security: inout [StageOutput]) async throws -> ValidationReason? {
        guard let parsed = TokenRequestParser.parseWithParts(message.value) else { return .malformed }
        let token = parsed.token
        let masters = try await tables.masterKeys(for: token.referencedTables)
        let opened: BirthmarkOpenedToken
        switch BirthmarkTokenValidator.open(token, masterKeys: masters) {
        case .success(let o): opened = o
        case .failure(let r):
            if r == .authenticationFailed {
                security.append(try events.output(for: message, .tokenRejected, .warning, reason: r.rawValue))
            }
            return ValidationReason(r)
        }
        let id = UUID(uuidString: message.header.id)!  // checked by the envelope parser
        guard try await ledger.claim(parsed.replayKey, messageID: id) else {
            security.append(try events.output(for: message, .replayedToken, .warning, reason: "replayed_token"))
            return .replayedToken
        }
        guard let device = try await devices.lookup(nucIndex: secrets.nucIndex(opened.nucHash), pool: pool) else {
            security.append(try events.output(for: message, .tokenRejected, .warning, reason: "unknown_device"))
            return .unknownDevice
        }
        let count = counter.record(device.id)
        if count >= configuration.warnThreshold, counter.mayWarn(device.id), try await markWarned(device) {
            security.append(try events.output(for: message, .abuseWarning, .warning, reason: "validation_rate",
                                              serial: device.serial, count: count))
        }
        let outcome = BirthmarkTokenValidator.judge(opened, device: device.record)
        if count >= configuration.blacklistThreshold, !device.blacklisted, try await autoBlacklist(device) {
            devices.invalidate(serial: device.serial)
            security.append(try events.output(for: message, .abuseBlacklisted, .critical, reason: "validation_rate",
                                              serial: device.serial, count: count))
        }
        guard let reason = outcome.reason else { return nil }
        security.append(try events.output(for: message, .tokenRejected, .warning, reason: reason.rawValue))
        return ValidationReason(reason)
    }

    /// Sets the device's warning mark unless set in the last 24 h; true when it was set now.
    func markWarned(_ device: DeviceEntry) async throws -> Bool {
        try await pool.execute("""
            UPDATE \(unescaped: schema).devices SET warned_at = now()
            WHERE device_id = \(device.id) AND (warned_at IS NULL OR warned_at < now() - interval '24 hours')
            """) == 1
    }

    /// Blacklists the device for exceeding the threshold; true when it was not already.
    func autoBlacklist(_ device: DeviceEntry) async throws -> Bool {
        try await pool.execute("""
            UPDATE \(unescaped: schema).devices
            SET blacklisted = true, blacklist_reason = 'abuse_threshold', changed_at = now()
            WHERE device_id = \(device.id) AND NOT blacklisted
            """) == 1
    }
}
