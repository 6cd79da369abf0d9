import Foundation
import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkSmileID
import HallmarkZip
import Logging
import SignerCore

/// The signer's and the gateway's real SIGN-1 / ENC-1 code over one PBKDF2 pool, with a fixed
/// clock and two secret versions. PBKDF2 runs 2 iterations rather than the protocol's 200,000:
/// the parsers around it are under test, and a derivation per input would leave the fuzzer
/// a few hundred inputs a second.
final class FuzzSmileID: Sendable {
    static let shared = FuzzSmileID()

    /// 2025-01-01T00:00:00Z, DESIGN's vector clock.
    let now = Date(timeIntervalSince1970: 1_735_689_600)
    let secrets: SecretSet
    let verifier: RequestVerifier
    let signer: RequestSigner
    let encryptor: PayloadEncryptor
    let decryptor: PayloadDecryptor

    private init() {
        // Batches of one: a worker holding one derivation would otherwise wait 2 ms for a second
        // to pair it with, and the fuzzer sends one input at a time.
        let pool = PBKDF2WorkerPool(workers: 1, batchSize: 1, service: "fuzz", logger: Logger(label: "fuzz"))
        pool.startDetached()
        let deriver = KeyDeriver(pool: pool, cache: DerivedKeyCache(capacity: 4096, ttl: 3600), iterations: 2)
        var configuration = SignerConfiguration()
        configuration.maxZipBytes = 1 << 20
        verifier = RequestVerifier(
            deriver: deriver, window: 300,
            zips: configuration.zipReader(service: "fuzz", logger: Logger(label: "fuzz")))
        signer = RequestSigner(deriver: deriver)
        encryptor = PayloadEncryptor(deriver: deriver, policy: EncryptionPolicy())
        decryptor = PayloadDecryptor(deriver: deriver, window: 300)
        secrets = try! SecretSet(
            versions: [.init(version: "v1", secret: "older-secret"), .init(version: "v2", secret: "test-secret")],
            signingVersion: "v2")
    }

    func verify(_ request: FuzzRequest) throws -> RequestVerifier.Outcome {
        try Blocking.run { [self] in
            try await verifier.verify(headers: request.headers, body: request.body, secrets: secrets, now: now)
        }
    }

    func sign(_ request: FuzzRequest) throws -> FuzzRequest {
        let (headers, _) = try Blocking.run { [self] in
            try await signer.sign(headers: request.headers, body: request.body, timestamp: nil, secrets: secrets, now: now)
        }
        return FuzzRequest(headers: headers, body: request.body)
    }

    func encrypt(_ request: FuzzRequest, path: String = "/v1/id_verification") throws -> PayloadEncryptor.Output {
        try Blocking.run { [self] in
            try await encryptor.encrypt(
                path: path, headers: request.headers, body: request.body,
                requestID: "0b7e1d52-3c8f-4f0a-9d55-7a1e8c2f6b90", timestamp: nil, secrets: secrets, now: now)
        }
    }

    func decrypt(_ request: FuzzRequest) throws -> PayloadDecryptor.Outcome {
        try Blocking.run { [self] in
            try await decryptor.decrypt(headers: request.headers, body: request.body, secrets: secrets, now: now)
        }
    }
}
