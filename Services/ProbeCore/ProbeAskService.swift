import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import ServiceLifecycle

/// Wires the request/reply reference pair (`hallmark probe-ask`): the asker stage, the reply
/// joiner stage and the retrier, in one process. The probe (`hallmark probe`, with the reply
/// topic on its `HALLMARK_REPLY_TOPICS`) answers the requests.
package enum ProbeAskService {
    /// Settings, from `HALLMARK_PROBE_ASK_…` variables.
    package struct Configuration: Sendable {
        /// Asks consumed. `HALLMARK_PROBE_ASK_INPUT`, default `hallmark.probe.asks`.
        package var input = "hallmark.probe.asks"
        /// Where requests go (the probe's input). `HALLMARK_PROBE_ASK_REQUESTS`, default `hallmark.probe.requests`.
        package var requests = TopicCatalogue.probeRequests.name
        /// Where replies come back. `HALLMARK_PROBE_ASK_REPLIES`, default `hallmark.probe.replies`.
        package var replies = "hallmark.probe.replies"
        /// Where answers go. `HALLMARK_PROBE_ASK_ANSWERS`, default `hallmark.probe.answers`.
        package var answers = "hallmark.probe.answers"
        /// `HALLMARK_PROBE_ASK_SCHEMA`, default `probe_ask`.
        package var schema = "probe_ask"
        /// `HALLMARK_PROBE_ASK_RESEND_MS`, default 2000.
        package var resendAfter: Duration = .seconds(2)
        /// `HALLMARK_PROBE_ASK_GIVE_UP_MS`, default 30000.
        package var giveUpAfter: Duration = .seconds(30)

        package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> Configuration {
            let s = Settings(env)
            var c = Configuration()
            c.input = try s.topic("HALLMARK_PROBE_ASK_INPUT", default: c.input)
            c.requests = try s.topic("HALLMARK_PROBE_ASK_REQUESTS", default: c.requests)
            c.replies = try s.topic("HALLMARK_PROBE_ASK_REPLIES", default: c.replies)
            c.answers = try s.topic("HALLMARK_PROBE_ASK_ANSWERS", default: c.answers)
            c.schema = try s.identifier("HALLMARK_PROBE_ASK_SCHEMA", default: c.schema)
            c.resendAfter = try s.milliseconds("HALLMARK_PROBE_ASK_RESEND_MS", default: c.resendAfter, in: 10...3_600_000)
            c.giveUpAfter = try s.milliseconds("HALLMARK_PROBE_ASK_GIVE_UP_MS", default: c.giveUpAfter, in: 10...86_400_000)
            return c
        }
    }

    package static func definition(_ c: Configuration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "probe-ask", topics: [c.input, c.requests, c.replies, c.answers], schema: c.schema,
            migrations: [PendingRequests.migration(schema: c.schema)])
    }

    package static func services(_ c: Configuration, context: ServiceContext) throws -> [any Service] {
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_POSTGRES_URL", reason: "is needed")
        }
        let pending = PendingRequests(schema: c.schema, resendAfter: c.resendAfter, giveUpAfter: c.giveUpAfter)
        let instance = context.instance, answers = c.answers
        let retrier = RequestRetrier(
            pending: pending, pool: database.pool, producer: context.producer, service: "probe-ask",
            logger: context.logger
        ) { expired in
            try expired.map { request in
                let state = try request.context(as: ProbeAskState.self)
                return try ProbeReplyJoiner.answer(state, instance: instance, topic: answers, outcome: "timed_out")
            }
        }
        let asker = try context.stage(
            ProbeAsker(pending: pending, requestTopic: c.requests, replyTopic: c.replies),
            inputs: [StageInput(topic: c.input, schemas: [ProbeRequest.schemaName])])
        var joinerConfig = try context.stageConfiguration(
            inputs: [StageInput(topic: c.replies, schemas: [ProbeResult.schemaName])])
        joinerConfig.dispatch = .partitionBatches
        joinerConfig.groupID += "-replies"
        let joiner = Stage(
            configuration: joinerConfig, transport: context.transport, database: database,
            processor: ProbeReplyJoiner(pending: pending, answerTopic: c.answers, instance: instance),
            logger: context.logger)
        return [retrier, asker, joiner]
    }
}
