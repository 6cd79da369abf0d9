import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka

extension GatewayHarness {
    /// What a gateway needs to answer privacy requests in this world: an operator key (its
    /// private half for signing requests), the operator key file, an audit index key, and the
    /// privacy and audit topics (created). Files live in `folder` (removed by the caller).
    struct Privacy {
        let key: OperatorKeyFile
        let keyFile: String
        /// The topics only (for the CLI).
        let topics: [String: String]
        /// The topics and the gateway's key files (for the gateway).
        let gateway: [String: String]
    }

    func privacy(in folder: URL) async throws -> Privacy {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try OperatorKeyFile.generate(keyID: "privacy-op")
        let keyFile = folder.appendingPathComponent("operator.key").path
        try key.write(to: keyFile)
        try Data((try key.publicEntry + "\n").utf8).write(to: folder.appendingPathComponent("operators"))
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("index.key"))
        let topics = [
            "HALLMARK_PRIVACY_REQUESTS_TOPIC": topic("privacy.in"), "HALLMARK_PRIVACY_RESULTS_TOPIC": topic("privacy.out"),
            "HALLMARK_AUDIT_TOPIC": topic("audit"),
        ]
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [topic("privacy.in"), topic("privacy.out"), topic("audit")], partitions: 2)
        return Privacy(
            key: key, keyFile: keyFile, topics: topics,
            gateway: topics.merging([
                "HALLMARK_GATEWAY_OPERATOR_KEYS_FILE": folder.appendingPathComponent("operators").path,
                "HALLMARK_GATEWAY_INDEX_KEY_FILE": folder.appendingPathComponent("index.key").path,
            ]) { $1 })
    }
}
