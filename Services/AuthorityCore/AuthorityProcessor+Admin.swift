import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension AuthorityProcessor {
    /// Applies a verified admin command and reports it on `hallmark.security`, naming the
    /// operator key that signed it. A command naming a device or table that does not exist is
    /// rejected (`unknown_device` / `unknown_table`).
    func administer(_ message: StageMessage, _ command: AdminCommand, keyID: String,
                    connection: PostgresConnection) async throws -> StageVerdict {
        let reason = command.reason.map { String($0.prefix(200)) }
        switch command.command {
        case .blacklist, .unblacklist:
            guard let serial = command.deviceSerial, ProvisionRequest.isValidSerial(serial) else {
                return .rejected(StageRejection(.schemaViolation, "device_serial is required"))
            }
            let blacklist = command.command == .blacklist
            let changed = try await connection.execute("""
                UPDATE \(unescaped: schema).devices
                SET blacklisted = \(blacklist), blacklist_reason = \(blacklist ? reason : nil), changed_at = now()
                WHERE serial = \(serial)
                """)
            guard changed == 1 else { return .rejected(StageRejection(RejectionReason("unknown_device"), "no such device_serial")) }
            devices.invalidate(serial: serial)
            return .outputs([try securityOutput(message, blacklist ? .deviceBlacklisted : .deviceUnblacklisted,
                                                blacklist ? .warning : .info, reason: reason, serial: serial,
                                                keyID: keyID)])
        case .retireTable:
            guard let table = command.tableId, table >= 0, table <= TokenRequestParser.maxTableId else {
                return .rejected(StageRejection(.schemaViolation, "table_id is required"))
            }
            let changed = try await connection.execute("""
                UPDATE \(unescaped: schema).key_tables SET retired = true WHERE table_id = \(table)
                """)
            guard changed == 1 else { return .rejected(StageRejection(RejectionReason("unknown_table"), "no such table_id")) }
            tables.markRetired(table)
            return .outputs([try securityOutput(message, .tableRetired, .info, reason: reason, tableId: table,
                                                keyID: keyID)])
        case .rotateKEK:
            maintenance?.trigger()
            return .outputs([try securityOutput(message, .kekRotation, .info, reason: reason, keyID: keyID)])
        }
    }

    /// The rejection of a refused admin command, with its security event (`admin_command_rejected`
    /// and the reason). The event names the command's id and key id, never its device serial:
    /// the command is untrusted, and no event carries both.
    func refuse(_ message: StageMessage, _ refusal: AdminCommandVerifier.Refusal) throws -> StageRejection {
        let event = try securityOutput(message, .adminCommandRejected, refusal.severity, reason: refusal.reason.rawValue,
                                       keyID: refusal.keyID)
        return StageRejection(refusal.reason, refusal.detail, sending: [event])
    }
}
