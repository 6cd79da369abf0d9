import ArgumentParser
import Foundation
import HallmarkKafka

/// `hallmark bench …`: measurements side by side in one run.
package struct BenchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against the real broker and database.",
        subcommands: [
            BenchKafkaCommand.self, BenchCryptoCommand.self, BenchJSONCommand.self, BenchSignerCommand.self,
            BenchAuthorityCommand.self, BenchGatewayCommand.self, BenchAggregatorCommand.self, BenchEdgeCommand.self,
            BenchEdgeFloorCommand.self,
        ])

    package init() {}
}

extension BenchCommand {
    /// The bench topics' partitions unless `--partitions` says otherwise: the services' own
    /// default (`HALLMARK_KAFKA_PARTITIONS`, which `deploy/local/env.sh` sets to the machine's
    /// cores, 2 to 4), so a bench measures what the stack runs.
    static var defaultPartitions: Int {
        (try? KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment).defaultPartitions)
            ?? KafkaConfiguration().defaultPartitions
    }
}
