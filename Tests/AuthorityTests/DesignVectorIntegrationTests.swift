import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import Testing

/// The DESIGN.md BM-TOKEN reference vector, byte for byte, through the running authority:
/// table 7 holds the vector's master key and a device holds the vector's NUC hash.
@Suite("Authority, DESIGN vector", .serialized, .timeLimit(.minutes(5)))
struct DesignVectorIntegrationTests {
    @Test func designVectorTokenPassesThenIsAReplay() async throws {
        let h = try await AuthorityHarness(tables: 12)
        let secrets = try h.secrets()
        let schema = h.configuration.schema
        let master = try Hex.decode(String(repeating: "0123456789abcdef", count: 4), length: 32)
        let nuc = try Hex.decode("53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67", length: 32)
        let sealedMaster = try AtRestSeal.seal(master, context: KeyTableStore.context(tableId: 7), keyring: secrets.keyring)
        _ = try await h.pool.execute(
            """
            UPDATE \(unescaped: schema).key_tables SET master_sealed = \(sealedMaster) WHERE table_id = 7
            """)
        let serial = "VECTOR-\(h.id)"
        let sealedNUC = try AtRestSeal.seal(
            nuc, context: AuthorityProcessor.nucContext(serial: serial),
            keyring: secrets.keyring)
        _ = try await h.pool.execute(
            """
            INSERT INTO \(unescaped: schema).devices (serial, nuc_index, nuc_sealed, kek_version, table_a, table_b, table_c)
            VALUES (\(serial), \(secrets.nucIndex(nuc)), \(sealedNUC), 1, 3, 7, 11)
            """)
        let service = try await h.start("vector")
        defer { service.signal(SIGKILL) }
        let token = BirthmarkCameraToken(
            ciphertext: "931056d7b8175b08806799160f675e830c66ef209e7f6d8df39a564ee0df66f1",
            authTag: "13039450b7b065044952ee3c7356df5d", nonce: "000102030405060708090a0b", tableId: 7, keyIndex: 42)
        #expect(try await h.validate(token).valid)
        #expect(try await h.validate(token).reason == .replayedToken)
        var wrongIndex = token
        wrongIndex.keyIndex = 43
        #expect(try await h.validate(wrongIndex).reason == .token(.authenticationFailed))
        // The same NUC hash through the mobile format, sealed with the vector master on table 7.
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 7, 11],
            keyIndices: [1, 42, 999], used: 1)
        #expect(try await h.validate(mobile).valid)
        await h.close()
    }
}
