import Crypto
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension AuthorityProcessor {
    /// Where a device's NUC hash is sealed, bound into its AAD.
    package static func nucContext(serial: String) -> AtRestContext {
        AtRestContext(table: "devices", column: "nuc_hash", rowId: serial)
    }

    /// Provisions a new camera: 3 distinct random tables that are not retired, the NUC hash
    /// sealed with its blind index beside it, and the table keys sealed to the camera (PROV-1);
    /// with a signing key, an X.509 certificate sealed to it with them (DESIGN BM-CERT).
    func provision(_ message: StageMessage, connection: PostgresConnection) async throws -> [StageOutput] {
        let request = try? message.decode(ProvisionRequest.self)
        let result = try await provisionResult(request, connection: connection)
        metrics.record(result)
        return [
            try message.reply(
                result, id: Self.resultID(message), or: configuration.provisionOutput,
                key: request?.deviceSerial ?? message.key)
        ]
    }

    /// A provisioning result's id, derived from its request's.
    static func resultID(_ message: StageMessage) -> MessageID {
        MessageID.derived(from: message.header.id, "provision-result")
    }

    private func provisionResult(
        _ request: ProvisionRequest?, connection: PostgresConnection
    ) async throws -> ProvisionResult {
        func rejected(_ reason: ProvisionResult.Reason) -> ProvisionResult {
            ProvisionResult(
                deviceSerial: request?.deviceSerial,
                status: .rejected, reason: reason)
        }
        guard let request, ProvisionRequest.isValidSerial(request.deviceSerial),
            let publicKey = try? Base64.decode(request.devicePublicKey, length: 32),
            (request.deviceFamily?.utf8.count ?? 0) <= 64
        else { return rejected(.malformed) }
        var signingKey: P256.Signing.PublicKey?
        if let text = request.deviceSigningKey {
            guard let der = try? Base64.decode(text), let key = try? P256.Signing.PublicKey(derRepresentation: der) else {
                return rejected(.malformed)
            }
            signingKey = key
        }
        var nucHash: Data?
        if let hex = request.nucHash {
            guard let nuc = try? Hex.decode(hex, length: 32) else { return rejected(.malformed) }
            nucHash = nuc
        }
        let serial = request.deviceSerial
        let existing = try await connection.query(
            """
            SELECT 1 FROM \(unescaped: schema).devices WHERE serial = \(serial)
            """)
        guard existing.isEmpty else { return rejected(.alreadyProvisioned) }
        let tombstone = try await connection.query(
            """
            SELECT 1 FROM \(unescaped: schema).erased_devices WHERE serial_index = \(secrets.tombstoneIndex(serial))
            """)
        guard tombstone.isEmpty else { return rejected(.erasedDevice) }
        let nucIndex = nucHash.map { secrets.nucIndex($0) }
        if let nucIndex {
            let taken = try await connection.query(
                """
                SELECT 1 FROM \(unescaped: schema).devices WHERE nuc_index = \(nucIndex)
                """)
            guard taken.isEmpty else { return rejected(.nucInUse) }
        }
        guard let chosen = try await chooseTables(connection: connection) else { return rejected(.noTables) }
        let masters = try await tables.masterKeys(for: chosen, on: connection)
        guard masters.count == 3 else { return rejected(.noTables) }
        let sealedNUC = try nucHash.map {
            try AtRestSeal.seal($0, context: Self.nucContext(serial: serial), keyring: secrets.keyring)
        }
        // Sealed before the insert: a public key nothing can be sealed to (a low-order point)
        // is refused without recording a device.
        var answer = ProvisioningAnswer(deviceSerial: serial, masterKeys: masters)
        if let signingKey {
            (answer.deviceCertificate, answer.certificateChain) = try await certificates.issue(
                signingKey, serial: serial, on: connection)
        }
        guard let sealed = try? ProvisioningSeal.seal(answer, cameraPublicKey: publicKey) else {
            return rejected(.malformed)
        }
        let inserted = try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).devices
                (serial, nuc_index, nuc_sealed, kek_version, table_a, table_b, table_c, device_family)
            VALUES (\(serial), \(nucIndex), \(sealedNUC), \(Int64(secrets.keyring.currentVersion)),
                    \(chosen[0]), \(chosen[1]), \(chosen[2]), \(request.deviceFamily))
            ON CONFLICT DO NOTHING
            """)
        guard inserted == 1 else { return rejected(.alreadyProvisioned) }  // a concurrent request won
        return ProvisionResult(
            deviceSerial: serial, status: .provisioned,
            tableAssignments: chosen, sealedProvisioning: sealed)
    }

    /// Three distinct random assignable tables, checked against the database so a table
    /// retired by another replica is never assigned; nil when fewer than three exist.
    private func chooseTables(connection: PostgresConnection) async throws -> [Int]? {
        for attempt in 0..<3 {
            var pool = tables.assignable
            if pool.count < 3 || attempt > 0 {
                try await tables.load(on: connection)
                pool = tables.assignable
            }
            guard pool.count >= 3 else { return nil }
            var chosen = Set<Int>()
            while chosen.count < 3 {
                let pick = try SecureRandom.uniform(below: pool.count)
                chosen.insert(pool[pick])
            }
            let ids = chosen.sorted()
            let rows = try await connection.query(
                """
                SELECT count(*)::bigint FROM \(unescaped: schema).key_tables
                WHERE NOT retired AND table_id IN (\(ids[0]), \(ids[1]), \(ids[2]))
                """)
            if try rows[0].column(0, as: Int64.self) == 3 { return ids }
        }
        return nil
    }
}
