import ArgumentParser
import HallmarkBench

/// `hallmark`: the admin CLI (local stack helpers, benchmarks, crypto tools, probe stage).
package struct HallmarkCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "hallmark",
        abstract: "Hallmark's admin command-line tool.",
        subcommands: [
            CryptoCommand.self, BenchCommand.self, ProbeCommand.self, ProbeAskCommand.self, ProbeWriterCommand.self,
            TrafficCommand.self,
            AuthorityCommand.self, ProvisionCommand.self, AggregatorCommand.self, VerifyCommand.self,
            TopCommand.self, MetricsCommand.self, AuditCommand.self, PrivacyCommand.self, ConfigCommand.self,
            WitnessCommand.self,
        ])

    package init() {}
}
