import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension AuthorityProcessor {
    /// Applies an admin command and reports it on `hallmark.security`. A command naming a
    /// device or table that does not exist is rejected (`unknown_device` / `unknown_table`).
    func administer(_ message: StageMessage, connection: PostgresConnection) async throws -> StageVerdict {
        let command = try message.decode(AdminCommand.self)
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
                                                blacklist ? .warning : .info, reason: reason, serial: serial)])
        case .retireTable:
            guard let table = command.tableId, table >= 0, table <= TokenRequestParser.maxTableId else {
                return .rejected(StageRejection(.schemaViolation, "table_id is required"))
            }
            let changed = try await connection.execute("""
                UPDATE \(unescaped: schema).key_tables SET retired = true WHERE table_id = \(table)
                """)
            guard changed == 1 else { return .rejected(StageRejection(RejectionReason("unknown_table"), "no such table_id")) }
            tables.markRetired(table)
            return .outputs([try securityOutput(message, .tableRetired, .info, reason: reason, tableId: table)])
        case .rotateKEK:
            maintenance?.trigger()
            return .outputs([try securityOutput(message, .kekRotation, .info, reason: reason)])
        }
    }
}
