import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import ProbeCore

/// `hallmark probe`: runs the probe stage as a service (see ``ProbeProcessor``).
///
/// Environment: `HALLMARK_PROBE_INPUT` (default `hallmark.probe.requests`),
/// `HALLMARK_PROBE_OUTPUT` (default `hallmark.probe.results`), `HALLMARK_PROBE_DELAY_MS`
/// (default 0), `HALLMARK_PROBE_SCHEMA` (default `probe`), `HALLMARK_PROBE_DATABASE` (`0` to
/// run without a database), `HALLMARK_PROBE_DISPATCH` (`lanes` or `batches`, default
/// `lanes`), plus the runtime's `HALLMARK_…` settings. With a database each message commits
/// in its own transaction (`batches`: one per batch).
package struct ProbeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Run the probe stage (a reference stage for smoke tests).")

    package init() {}

    package func run() async throws {
        let settings = Settings()
        let input = try settings.value(CLIVariables.Probe.input), output = try settings.value(CLIVariables.Probe.output)
        let delay = try settings.value(CLIVariables.Probe.delay)
        let withDatabase = try settings.value(CLIVariables.Probe.database)
        let schema = try settings.value(CLIVariables.Probe.schema)
        let batches = try settings.value(CLIVariables.Probe.batches)
        let definition = ServiceRunner.Definition(
            service: "probe", topics: [input, output], schema: withDatabase ? schema : nil,
            migrations: ProbeProcessor.migrations(schema: schema))
        await ServiceRunner.run(definition) { context in
            [
                try context.stage(
                    ProbeProcessor(
                        outputTopic: output, instance: context.instance, schema: schema, delay: delay,
                        unitOfWork: withDatabase ? (batches ? .perBatch : .perMessage) : .none),
                    inputs: [StageInput(topic: input, schemas: [ProbeRequest.schemaName])],
                    dispatch: batches ? .partitionBatches : .keyLanes)
            ]
        }
    }
}
