import HallmarkCore
import HallmarkMessages

/// The request/reply reference pair's settings (`hallmark probe-ask`), each declared once in
/// ``settings``.
package struct ProbeAskConfiguration: DeclaredSettings {
    package var input: String = declared(\.input)
    package var requests: String = declared(\.requests)
    package var replies: String = declared(\.replies)
    package var answers: String = declared(\.answers)
    package var schema: String = declared(\.schema)
    package var resendAfter: Duration = declared(\.resendAfter)
    package var giveUpAfter: Duration = declared(\.giveUpAfter)

    package init() {}

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(\.input, .topic("HALLMARK_PROBE_ASK_INPUT", default: TopicCatalogue.probeAsks.name, doc: "the asks consumed")),
        .bind(
            \.requests,
            .topic(
                "HALLMARK_PROBE_ASK_REQUESTS", default: TopicCatalogue.probeRequests.name,
                doc: "where requests go (the probe's input)")),
        .bind(
            \.replies,
            .topic("HALLMARK_PROBE_ASK_REPLIES", default: TopicCatalogue.probeReplies.name, doc: "where replies come back")),
        .bind(
            \.answers, .topic("HALLMARK_PROBE_ASK_ANSWERS", default: TopicCatalogue.probeAnswers.name, doc: "where answers go")),
        .bind(\.schema, .identifier("HALLMARK_PROBE_ASK_SCHEMA", default: "probe_ask", doc: "PostgreSQL schema")),
        .bind(
            \.resendAfter,
            .milliseconds(
                "HALLMARK_PROBE_ASK_RESEND_MS", default: .seconds(2), in: 10...3_600_000,
                doc: "how long a request waits for its reply before it is sent again")),
        .bind(
            \.giveUpAfter,
            .milliseconds(
                "HALLMARK_PROBE_ASK_GIVE_UP_MS", default: .seconds(30), in: 10...86_400_000,
                doc: "how long a request is tried before it is answered timed_out")),
    ]

    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> Self {
        try Self().applying(Settings(env))
    }
}
