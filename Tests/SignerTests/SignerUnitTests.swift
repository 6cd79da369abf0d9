import HallmarkSmileID
import HallmarkZip
import Foundation
import HallmarkCore
import HallmarkCrypto
import Logging
import SignerCore
import Testing

@Suite("Signer units", .timeLimit(.minutes(2)))
struct SignerUnitTests {
    @Test func configurationReadsVariablesAndNamesBadOnes() throws {
        let c = try SignerConfiguration.fromEnvironment([
            "HALLMARK_SIGNER_WINDOW_SECONDS": "60", "HALLMARK_SIGNER_WORKERS": "3",
            "HALLMARK_SIGNER_KEY_CACHE_SIZE": "0", "HALLMARK_SIGNER_VERIFY_INPUT": "in.v",
        ])
        #expect(c.timestampWindow == 60)
        #expect(c.keys.workers == 3)
        #expect(c.keys.keyCacheSize == 0)
        #expect(c.verifyInput == "in.v")
        #expect(c.signInput == "smileid.sign.requests")
        // The PBKDF2 batch follows the CPU unless set.
        #expect(c.keys.batchSize == PBKDF2.preferredBatch)
        #expect(try SignerConfiguration.fromEnvironment(["HALLMARK_SIGNER_BATCH": "4"]).keys.batchSize == 4)
        // A worker waits for a partner only where a pair costs little more than one derivation.
        let paired = PBKDF2WorkerPool(workers: 1, batchSize: 2, service: "test", logger: Logger(label: "test"))
        #expect(paired.pairWait == (PBKDF2.hasSHAExtensions ? .milliseconds(2) : .zero))
        #expect(PBKDF2WorkerPool(workers: 1, batchSize: 1, service: "test", logger: Logger(label: "test")).pairWait == .zero)
        let error = #expect(throws: ConfigurationError.self) {
            try SignerConfiguration.fromEnvironment(["HALLMARK_SIGNER_WINDOW_SECONDS": "soon"])
        }
        #expect(error?.description.contains("HALLMARK_SIGNER_WINDOW_SECONDS") == true)
        #expect(error?.description.contains("soon") == false)
    }

    @Test func zipSettingsAreReadAndTheBudgetMustHoldOneZipAtTheCap() throws {
        let defaults = try SignerConfiguration.fromEnvironment([:])
        #expect(defaults.zipLimits == ZipLimits(maxEntries: 256, maxInflatedBytes: 64 << 20))
        #expect(defaults.zipMemoryBytes == 256 << 20 && defaults.zipWorkers == 1)
        let c = try SignerConfiguration.fromEnvironment([
            "HALLMARK_SIGNER_MAX_ZIP_BYTES": "3000", "HALLMARK_SIGNER_MAX_ZIP_ENTRIES": "8",
            "HALLMARK_SIGNER_ZIP_MEMORY_BYTES": "4000", "HALLMARK_SIGNER_ZIP_WORKERS": "2",
        ])
        #expect(c.zipLimits.maxEntries == 8 && c.zipLimits.maxInflatedBytes == 3000)
        #expect(c.zipMemoryBytes == 4000 && c.zipWorkers == 2)
        // 3000 bytes in one image file are 4000 bytes of base64: the least budget that admits it.
        #expect(c.zipLimits.largestReservation == 4000)
        let error = #expect(throws: ConfigurationError.self) {
            try SignerConfiguration.fromEnvironment([
                "HALLMARK_SIGNER_MAX_ZIP_BYTES": "3000",
                "HALLMARK_SIGNER_ZIP_MEMORY_BYTES": "3999",
            ])
        }
        #expect(error?.variable == "HALLMARK_SIGNER_ZIP_MEMORY_BYTES")
        for (name, value) in [
            ("HALLMARK_SIGNER_MAX_ZIP_ENTRIES", "0"), ("HALLMARK_SIGNER_ZIP_WORKERS", "65"),
            ("HALLMARK_SIGNER_ZIP_MEMORY_BYTES", "-1"),
        ] {
            let error = #expect(throws: ConfigurationError.self) { try SignerConfiguration.fromEnvironment([name: value]) }
            #expect(error?.variable == name)
        }
    }

    @Test func secretFolderNeedsASigningMarkerAndNeverPrintsSecrets() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("very-secret-1\n".utf8).write(to: dir.appendingPathComponent("v1"))
        try Data("very-secret-2".utf8).write(to: dir.appendingPathComponent("v2"))
        #expect(throws: SmileIDError.self) { try SecretSet.load(directory: dir.path) }
        try Data("v2\n".utf8).write(to: dir.appendingPathComponent("signing-version"))
        let set = try SecretSet.load(directory: dir.path)
        #expect(set.versions.map(\.version) == ["v1", "v2"])
        #expect(set.signing.version == "v2")
        for text in ["\(set)", "\(set.signing)", String(reflecting: set.signing), "\(set.versions)"] {
            #expect(!text.contains("very-secret"))
        }
        let fromEnv = try SecretSet.load(
            directory: nil,
            environment: [
                "HALLMARK_SIGNER_SECRET_V7": "x", "HALLMARK_SIGNER_SIGNING_VERSION": "V7",
            ], variablePrefix: "HALLMARK_SIGNER_")
        #expect(fromEnv.signing.version == "v7")
    }

    @Test func keyCacheExpiresAndStaysBounded() async throws {
        let cache = DerivedKeyCache(capacity: 3, ttl: 0.2)
        for i in 0..<5 { cache.put(version: "v1", salt: Data([UInt8(i)]), key: Data([UInt8(i)])) }
        #expect(cache.count == 3)
        #expect(cache.get(version: "v1", salt: Data([0])) == nil)
        #expect(cache.get(version: "v1", salt: Data([4])) == Data([4]))
        #expect(cache.get(version: "v2", salt: Data([4])) == nil)
        try await Task.sleep(for: .milliseconds(300))
        #expect(cache.get(version: "v1", salt: Data([4])) == nil)
    }

    /// Vector C through the worker pool and the cache: the dedicated threads give the
    /// reference bytes, and a second request for the same salt is served from the cache.
    @Test func workerPoolDerivesVectorCInBatches() async throws {
        let pool = PBKDF2WorkerPool(workers: 2, batchSize: 4, service: "signer", logger: Logger(label: "test"))
        pool.startDetached()
        defer { pool.stop() }
        let cache = DerivedKeyCache(capacity: 16, ttl: 60)
        let deriver = KeyDeriver(pool: pool, cache: cache)
        let data = Data("test payload".utf8)
        let salt = SmileIDSignature.salt(dataCount: data.count, timestamp: Fixtures.vectorTimestamp)
        let secret = SecretVersion(version: "v1", secret: "test-secret")
        let keys = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<4 { group.addTask { try await deriver.keys(versions: [secret], salt: salt)[0] } }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        let mac = Base64.encode(HMACSHA256.mac(key: keys[0], data: data))
        #expect(mac == "d0z1cqkMp2cMNM9risySEwXvNJOAoG+dHRv+tBaokKk=")
        #expect(Set(keys).count == 1)
        #expect(cache.count == 1)
        // Distinct salts in one job come back in order.
        let salts = (0..<5).map { SmileIDSignature.salt(dataCount: $0, timestamp: Fixtures.vectorTimestamp) }
        let direct = try salts.map {
            try PBKDF2.deriveSHA256(password: Data("test-secret".utf8), salt: $0, iterations: SmileIDSignature.iterations)
        }
        let pooled = try await pool.derive(
            salts.map {
                PBKDF2.Request(password: Data("test-secret".utf8), salt: $0, iterations: SmileIDSignature.iterations)
            })
        #expect(pooled == direct)
    }

    @Test func stoppedPoolFailsInsteadOfHanging() async {
        let pool = PBKDF2WorkerPool(workers: 1, batchSize: 1, service: "signer", logger: Logger(label: "test"))
        pool.stop()
        await #expect(throws: SmileIDError.self) {
            _ = try await pool.derive([PBKDF2.Request(password: Data("a".utf8), salt: Data("b".utf8), iterations: 1)])
        }
    }
}
