import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkRuntime
import ProbeCore

/// `hallmark probe-writer`: the ordered single writer's reference log (see ``ProbeSequence``);
/// run several for a leader and hot standbys.
///
/// Environment: `HALLMARK_PROBE_WRITER_SCHEMA` (default `probe_writer`),
/// `HALLMARK_PROBE_WRITER_OUTPUT` (default `hallmark.probe.checkpoints`),
/// `HALLMARK_PROBE_WRITER_BATCH` (default 500), `HALLMARK_PROBE_WRITER_LINGER_MS` (default 50).
package struct ProbeWriterCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "probe-writer", abstract: "Run the ordered writer's reference log (leader or standby).")

    package init() {}

    package func run() async throws {
        let settings = Settings()
        let schema = try settings.identifier("HALLMARK_PROBE_WRITER_SCHEMA", default: "probe_writer")
        let output = try settings.topic("HALLMARK_PROBE_WRITER_OUTPUT", default: "hallmark.probe.checkpoints")
        let batch = try settings.integer("HALLMARK_PROBE_WRITER_BATCH", default: 500, in: 1...100_000)
        let linger = try settings.milliseconds("HALLMARK_PROBE_WRITER_LINGER_MS", default: .milliseconds(50), in: 0...60_000)
        let definition = ServiceRunner.Definition(
            service: "probe-writer", topics: [output], schema: schema,
            migrations: ProbeSequence.migrations(schema: schema))
        await ServiceRunner.run(definition) { context in
            guard let database = context.database else { return [] }
            let log = ProbeSequence(schema: schema, output: output, instance: context.instance)
            return [
                OrderedWriter(
                    configuration: .init(
                        name: "reference", schema: schema, service: "probe-writer",
                        maxBatch: batch, linger: linger),
                    log: log, pool: database.pool, producer: context.producer, logger: context.logger)
            ]
        }
    }
}
