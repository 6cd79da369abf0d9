import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkRuntime

extension SignerHarness {
    /// What a signer needs to answer privacy requests in this world: an operator key file (the
    /// public entry of a fresh key), an index key, and the privacy and audit topics (created).
    /// Files live in `folder` (removed by the caller).
    struct Privacy {
        let topics: PrivacyTopics
        /// The topics and the signer's key files (for the signer).
        let signer: [String: String]
    }

    func privacy(in folder: URL) async throws -> Privacy {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try OperatorKeyFile.generate(keyID: "privacy-op")
        try Data((try key.publicEntry + "\n").utf8).write(to: folder.appendingPathComponent("operators"))
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("index.key"))
        let topics = PrivacyTopics(requests: "test.signer.\(id).privacy.in", results: "test.signer.\(id).privacy.out")
        let audit = "test.signer.\(id).audit"
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [topics.requests, topics.results, audit], partitions: 2)
        return Privacy(
            topics: topics,
            signer: [
                "HALLMARK_PRIVACY_REQUESTS_TOPIC": topics.requests, "HALLMARK_PRIVACY_RESULTS_TOPIC": topics.results,
                "HALLMARK_AUDIT_TOPIC": audit,
                "HALLMARK_SIGNER_OPERATOR_KEYS_FILE": folder.appendingPathComponent("operators").path,
                "HALLMARK_SIGNER_INDEX_KEY_FILE": folder.appendingPathComponent("index.key").path,
            ])
    }
}
