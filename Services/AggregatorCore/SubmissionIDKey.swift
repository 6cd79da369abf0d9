import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime

/// The key only the aggregator holds, from which it derives the ids that cross the privacy
/// split (DESIGN §2): a token request's id, Kafka key and `correlation_id` are
/// HMAC-SHA256(key, submission id ‖ name), so the authority's view (which knows each token's
/// device) cannot be joined to the submission topics by recomputing them. Deterministic under
/// the key, so a submission sent again asks the same question.
///
/// `HALLMARK_AGGREGATOR_ID_KEY_FILE` (a file holding b64 of at least 32 bytes), else
/// `HALLMARK_AGGREGATOR_ID_KEY`; required to run. Every replica needs the same key. Never
/// logged: its description is redacted.
package struct SubmissionIDKey: Sendable, CustomStringConvertible {
    private let key: Data

    /// A key of at least 32 bytes.
    package init(_ key: Data) throws(ConfigurationError) {
        guard key.count >= 32 else { throw ConfigurationError(variable: Self.variable.name, reason: "needs at least 32 bytes") }
        self.key = key
    }

    /// A new random key (tests, or `openssl rand -base64 32` for a deployment).
    package static func generate() throws -> SubmissionIDKey { try SubmissionIDKey(try SecureRandom.bytes(32)) }

    /// Its text form: what the file or the variable holds.
    package var base64: String { Base64.encode(key) }

    package var description: String { "SubmissionIDKey(redacted)" }

    /// `HALLMARK_AGGREGATOR_ID_KEY_FILE`, else `HALLMARK_AGGREGATOR_ID_KEY`.
    package static let variable = FileSetting(
        "HALLMARK_AGGREGATOR_ID_KEY", doc: "the key of token request ids (b64 of 32 random bytes)")

    /// The key from the environment; nil when neither variable is set. Errors never carry it.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> SubmissionIDKey? {
        try KeySetting.read(env, variable).map { key throws(ConfigurationError) in try SubmissionIDKey(key) }
    }

    /// A UUID (version 8) keyed from a submission id and an output's name.
    package func derive(from submission: UUID, _ name: String) -> MessageID {
        let input = "hallmark-aggregator-id-v1:\(submission.lowercasedText):\(name)"
        return MessageID.version8(HMACSHA256.mac(key: key, data: Array(input.utf8)))
    }

    /// A keyed digest of `bytes` under `name`: what the aggregator keeps of a value it must
    /// recognise but not hold (a capture's token, its hashes), useless to anyone without the key.
    package func digest(_ name: String, _ bytes: some DataProtocol) -> Data {
        HMACSHA256.mac(key: key, data: Array("hallmark-aggregator-digest-v1:\(name):".utf8) + Array(bytes))
    }
}
