import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension TokenProcessor {
    /// Sets the device's warning mark unless set in the last 24 h; true when it was set now.
    func markWarned(_ device: DeviceEntry) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE \(unescaped: schema).devices SET warned_at = now()
            WHERE device_id = \(device.id) AND (warned_at IS NULL OR warned_at < now() - interval '24 hours')
            """) == 1
    }

    /// Blacklists the device for exceeding the threshold and records it in the audit trail;
    /// the record's output when it was not blacklisted already.
    func autoBlacklist(_ device: DeviceEntry) async throws -> StageOutput? {
        try await pool.transaction { connection in
            guard
                try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).devices
                    SET blacklisted = true, blacklist_reason = 'abuse_threshold', changed_at = now()
                    WHERE device_id = \(device.id) AND NOT blacklisted
                    """) == 1
            else { return nil }
            return try await audit.append(
                .byService(
                    .abuseBlacklist, subject: (.deviceSerial, device.serial),
                    reason: "validation_rate"),
                idSeed: "abuse-blacklist:\(device.id):\(MessageID.random())", on: connection
            ).output
        }
    }
}
