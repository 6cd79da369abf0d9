import ArgumentParser
import Foundation
import HallmarkRuntime

/// `hallmark probe`: runs the probe stage as a service (see ``ProbeProcessor``).
///
/// Environment: `HALLMARK_PROBE_INPUT` (default `hallmark.probe.requests`),
/// `HALLMARK_PROBE_OUTPUT` (default `hallmark.probe.results`), `HALLMARK_PROBE_DELAY_MS`
/// (default 0), `HALLMARK_PROBE_SCHEMA` (default `probe`), `HALLMARK_PROBE_DATABASE` (`0` to
/// run without a database), plus the
/// runtime's `HALLMARK_…` settings.
public struct ProbeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Run the probe stage (a reference stage for smoke tests).")

    public init() {}

    public func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let input = env["HALLMARK_PROBE_INPUT"] ?? "hallmark.probe.requests"
        let output = env["HALLMARK_PROBE_OUTPUT"] ?? "hallmark.probe.results"
        let delay = Duration.milliseconds(Int(env["HALLMARK_PROBE_DELAY_MS"] ?? "") ?? 0)
        let withDatabase = env["HALLMARK_PROBE_DATABASE"] != "0"
        let schema = env["HALLMARK_PROBE_SCHEMA"] ?? "probe"
        let definition = ServiceRunner.Definition(
            service: "probe", topics: [input, output], schema: withDatabase ? schema : nil,
            migrations: ProbeProcessor.migrations(schema: schema))
        await ServiceRunner.run(definition) { context in
            [try context.stage(ProbeProcessor(outputTopic: output, instance: context.instance, schema: schema,
                                              delay: delay),
                               inputTopics: [input])]
        }
    }
}
