import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import ServiceLifecycle

/// Wires the request/reply reference pair (`hallmark probe-ask`): the asker stage, the reply
/// joiner stage and the retrier, in one process. The probe (`hallmark probe`, with the reply
/// topic on its `HALLMARK_REPLY_TOPICS`) answers the requests.
package enum ProbeAskService {
    package static func definition(_ c: ProbeAskConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "probe-ask", topics: [c.input, c.requests, c.replies, c.answers], schema: c.schema,
            migrations: [PendingRequests.migration(schema: c.schema)])
    }

    package static func services(_ c: ProbeAskConfiguration, context: ServiceContext) throws -> [any Service] {
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_POSTGRES_URL", reason: "is needed")
        }
        let pending = PendingRequests(schema: c.schema, resendAfter: c.resendAfter, giveUpAfter: c.giveUpAfter)
        let instance = context.instance, answers = c.answers
        let retrier = RequestRetrier(
            book: pending, pool: database.pool, producer: context.producer, service: "probe-ask",
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
        joinerConfig.wakesOnProduce = true  // replies answer the asker's requests
        let joiner = Stage(
            configuration: joinerConfig, transport: context.transport, database: database,
            processor: ProbeReplyJoiner(pending: pending, answerTopic: c.answers, instance: instance),
            logger: context.logger)
        return [retrier, asker, joiner]
    }
}
