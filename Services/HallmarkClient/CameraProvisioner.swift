import Crypto
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka

/// Plays a camera's provisioning end to end: makes an X25519 key pair, sends the request,
/// waits for the answer on `watcher` and opens it (PROV-1).
package struct CameraProvisioner: Sendable {
    let producer: KafkaProducer
    let watcher: AnswerWatcher
    /// The authority's provisioning input (`HALLMARK_AUTHORITY_PROVISION_INPUT`).
    let topic: String

    /// Creates a provisioner that sends to `topic`; `watcher` must read the authority's
    /// provisioning output.
    package init(producer: KafkaProducer, watcher: AnswerWatcher, topic: String) {
        self.producer = producer
        self.watcher = watcher
        self.topic = topic
    }

    /// What came back.
    package enum Outcome: Sendable {
        case provisioned(ProvisioningFile)
        case rejected(String)
    }

    /// Provisions `serial` with `nucHash` (random when nil); with `certificate`, in certificate
    /// mode too (a P-256 signing key made here, its certificate asked for).
    package func provision(
        serial: String, nucHash: Data? = nil, family: String? = nil, certificate: Bool = false,
        timeout: Duration = .seconds(60)
    ) async throws -> Outcome {
        let (producer, watcher, topic) = (self.producer, self.watcher, self.topic)
        return try await Self.provision(serial: serial, nucHash: nucHash, family: family, certificate: certificate) { request in
            try await producer.send(topic: topic, key: Array(serial.utf8), value: try JSONCoding.encode(request))
            return await watcher.answer(for: request.id, timeout: timeout)
        }
    }

    /// Provisions `serial` through any exchange with the authority: `exchange` delivers the
    /// request (keyed by its serial) and returns the answer's bytes, or nil when none came (a
    /// test's in-memory broker, or Kafka as above).
    package static func provision(
        serial: String, nucHash: Data? = nil, family: String? = nil, certificate: Bool = false,
        exchange: (Message<ProvisionRequest>) async throws -> [UInt8]?
    ) async throws -> Outcome {
        let keys = try X25519.generate()
        let nuc = try nucHash ?? SecureRandom.bytes(32)
        // The camera's signing key stays here; only its public half is sent.
        let signing = certificate ? P256.Signing.PrivateKey() : nil
        let request = Message(
            ProvisionRequest(
                deviceSerial: serial, devicePublicKey: Base64.encode(keys.publicKey), nucHash: Hex.encode(nuc),
                deviceFamily: family, deviceSigningKey: signing.map { Base64.encode($0.publicKey.derRepresentation) }))
        guard let bytes = try await exchange(request) else {
            throw AuthorityClientError(.timeout, "no provisioning answer within the timeout")
        }
        let result = try JSONCoding.decode(ProvisionResult.self, from: bytes)
        guard result.status == .provisioned, let sealed = result.sealedProvisioning else {
            return .rejected(result.reason?.rawValue ?? "rejected")
        }
        let answer = try ProvisioningSeal.open(sealed, cameraPrivateKey: keys.privateKey)
        guard answer.deviceSerial == serial, Set(answer.tableAssignments) == Set(result.tableAssignments ?? []) else {
            throw AuthorityClientError(.mismatch, "the sealed answer does not match the request")
        }
        var file = ProvisioningFile(answer: answer, nucHash: nuc)
        if let signing {
            guard file.deviceCertificate != nil else {
                throw AuthorityClientError(.mismatch, "the answer holds no certificate for the signing key")
            }
            file.devicePrivateKey = signing.pemRepresentation
        }
        return .provisioned(file)
    }
}
