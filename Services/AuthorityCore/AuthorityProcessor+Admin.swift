import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension AuthorityProcessor {
    /// Applies a verified admin command, records it in the audit trail (``AuditTrail``, in the
    /// same transaction) and reports it on `hallmark.security`, naming the operator key that
    /// signed it. A command naming a device or table that does not exist is rejected
    /// (`unknown_device` / `unknown_table`), and that too is recorded.
    func administer(
        _ message: StageMessage, _ command: AdminCommand, keyID: String,
        connection: PostgresConnection
    ) async throws -> StageVerdict {
        let reason = command.reason.map { String($0.prefix(200)) }
        let action = AuditRecord.Action(command.command)
        /// The audit record of this command, as an output for after the commit.
        func audited(
            _ outcome: AuditRecord.Outcome, serial: String? = nil, table: Int? = nil,
            code: RejectionReason? = nil
        ) async throws -> StageOutput {
            try await audit.append(
                .byOperator(
                    keyID, action, subject: serial.map { (.deviceSerial, $0) }, tableID: table,
                    requestID: message.header.id, outcome: outcome, reason: code?.rawValue),
                idSeed: message.header.id.text, on: connection
            ).output
        }
        func rejected(
            _ code: RejectionReason, _ detail: String, serial: String? = nil, table: Int? = nil
        ) async throws
            -> StageVerdict
        {
            .rejected(
                StageRejection(
                    code, detail,
                    sending: [
                        try await audited(
                            .rejected, serial: serial, table: table,
                            code: code)
                    ]))
        }
        switch command.command {
        case .blacklist, .unblacklist:
            guard let serial = command.deviceSerial, ProvisionRequest.isValidSerial(serial) else {
                return try await rejected(.schemaViolation, "device_serial is required")
            }
            let blacklist = command.command == .blacklist
            let changed = try await connection.execute(
                """
                UPDATE \(unescaped: schema).devices
                SET blacklisted = \(blacklist), blacklist_reason = \(blacklist ? reason : nil), changed_at = now()
                WHERE serial = \(serial)
                """)
            guard changed == 1 else {
                return try await rejected(RejectionReason("unknown_device"), "no such device_serial", serial: serial)
            }
            devices.invalidate(serial: serial)
            return .outputs([
                try securityOutput(
                    message, blacklist ? .deviceBlacklisted : .deviceUnblacklisted,
                    blacklist ? .warning : .info, reason: reason, serial: serial,
                    keyID: keyID),
                try await audited(.succeeded, serial: serial),
            ])
        case .retireTable:
            guard let table = command.tableId, BirthmarkKeys.tableIds.contains(table) else {
                return try await rejected(.schemaViolation, "table_id is required")
            }
            let changed = try await connection.execute(
                """
                UPDATE \(unescaped: schema).key_tables SET retired = true WHERE table_id = \(table)
                """)
            guard changed == 1 else {
                return try await rejected(RejectionReason("unknown_table"), "no such table_id", table: table)
            }
            tables.markRetired(table)
            return .outputs([
                try securityOutput(
                    message, .tableRetired, .info, reason: reason, tableId: table,
                    keyID: keyID),
                try await audited(.succeeded, table: table),
            ])
        case .rotateKEK:
            maintenance?.trigger()
            return .outputs([
                try securityOutput(message, .kekRotation, .info, reason: reason, keyID: keyID),
                try await audited(.succeeded),
            ])
        }
    }

    /// The rejection of a refused admin command, with its security event (`admin_command_rejected`
    /// and the reason). The event names the command's id and key id, never its device serial:
    /// the command is untrusted, and no event carries both.
    func refuse(_ message: StageMessage, _ refusal: AdminCommandVerifier.Refusal) throws -> StageRejection {
        let event = try securityOutput(
            message, .adminCommandRejected, refusal.severity, reason: refusal.reason.rawValue,
            keyID: refusal.keyID)
        return StageRejection(refusal.reason, refusal.detail, sending: [event])
    }
}

extension AuditRecord.Action {
    /// The audit action of an admin command.
    init(_ command: AdminCommand.Action) {
        switch command {
        case .blacklist: self = .blacklist
        case .unblacklist: self = .unblacklist
        case .retireTable: self = .retireTable
        case .rotateKEK: self = .rotateKEK
        }
    }
}
