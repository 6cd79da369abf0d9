import Foundation
import HallmarkCrypto
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

extension AuthorityProcessor {
    /// Answers a token request with PASS or FAIL and one reason.
    ///
    /// Order: malformed → unknown_table → authentication_failed (opening) → replayed_token →
    /// unknown_device → table_not_assigned → blacklisted. The device is found through the
    /// NUC hash the token decrypts to (its blind index), so no image hash and no device id
    /// ever reach the authority. The replay record is written in the message's transaction:
    /// a redelivered message that was not committed redoes it, one that was is skipped by
    /// the runtime's inbox, and either way its answer is the first one.
    func validate(_ message: StageMessage, connection: PostgresConnection) async throws -> [StageOutput] {
        let start = ContinuousClock.now
        var security: [StageOutput] = []
        let reason = try await judge(message, connection: connection, security: &security)
        metrics.record(reason)
        let elapsed = (ContinuousClock.now - start).components
        metrics.validationTime.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        let result = TokenResult(id: MessageID.derived(from: message.header.id, "token-result"),
                                 producedAt: Timestamp.now(), requestId: message.header.id, reason: reason)
        return [try .json(topic: configuration.tokenOutput, key: key(of: message), result)] + security
    }

    private func judge(_ message: StageMessage, connection: PostgresConnection,
                       security: inout [StageOutput]) async throws -> ValidationReason? {
        guard let token = TokenRequestParser.parse(message.value),
              let replayKey = TokenRequestParser.replayKey(token) else { return .malformed }
        let masters = try await tables.masterKeys(for: token.referencedTables, on: connection)
        let opened: BirthmarkOpenedToken
        switch BirthmarkTokenValidator.open(token, masterKeys: masters) {
        case .success(let o): opened = o
        case .failure(let r):
            if r == .authenticationFailed {
                security.append(try securityOutput(message, .tokenRejected, .warning, reason: r.rawValue))
            }
            return ValidationReason(r)
        }
        guard try await isFresh(replayKey, message: message, connection: connection) else {
            security.append(try securityOutput(message, .replayedToken, .warning, reason: "replayed_token"))
            return .replayedToken
        }
        let index = secrets.nucIndex(opened.nucHash)
        guard let device = try await devices.lookup(nucIndex: index, on: connection) else {
            security.append(try securityOutput(message, .tokenRejected, .warning, reason: "unknown_device"))
            return .unknownDevice
        }
        let count = counter.record(device.id)
        if count >= configuration.warnThreshold, counter.mayWarn(device.id),
           try await markWarned(device, connection: connection) {
            security.append(try securityOutput(message, .abuseWarning, .warning, reason: "validation_rate",
                                               serial: device.serial, count: count))
        }
        let outcome = BirthmarkTokenValidator.judge(opened, device: device.record)
        if count >= configuration.blacklistThreshold, !device.blacklisted,
           try await autoBlacklist(device, connection: connection) {
            devices.invalidate(serial: device.serial)
            security.append(try securityOutput(message, .abuseBlacklisted, .critical, reason: "validation_rate",
                                               serial: device.serial, count: count))
        }
        guard let reason = outcome.reason else { return nil }
        security.append(try securityOutput(message, .tokenRejected, .warning, reason: reason.rawValue))
        return ValidationReason(reason)
    }

    /// Records the token's nonce+ciphertext; false when it was already validated within the
    /// window by another message. The same message id counts as fresh (a retried attempt).
    func isFresh(_ replayKey: Data, message: StageMessage, connection: PostgresConnection) async throws -> Bool {
        let id = UUID(uuidString: message.header.id)!  // checked by the envelope parser
        let window = Double(configuration.replayWindowSeconds)
        let inserted = try await connection.execute("""
            INSERT INTO \(unescaped: schema).seen_tokens AS s (token_hash, message_id, expires_at)
            VALUES (\(replayKey), \(id), now() + \(window) * interval '1 second')
            ON CONFLICT (token_hash) DO UPDATE SET message_id = EXCLUDED.message_id, expires_at = EXCLUDED.expires_at
            WHERE s.expires_at <= now() OR s.message_id = EXCLUDED.message_id
            """)
        return inserted == 1
    }

    /// Sets the device's warning mark unless set in the last 24 h; true when it was set now.
    func markWarned(_ device: DeviceEntry, connection: PostgresConnection) async throws -> Bool {
        try await connection.execute("""
            UPDATE \(unescaped: schema).devices SET warned_at = now()
            WHERE device_id = \(device.id) AND (warned_at IS NULL OR warned_at < now() - interval '24 hours')
            """) == 1
    }

    /// Blacklists the device for exceeding the threshold; true when it was not already.
    func autoBlacklist(_ device: DeviceEntry, connection: PostgresConnection) async throws -> Bool {
        try await connection.execute("""
            UPDATE \(unescaped: schema).devices
            SET blacklisted = true, blacklist_reason = 'abuse_threshold', changed_at = now()
            WHERE device_id = \(device.id) AND NOT blacklisted
            """) == 1
    }
}
