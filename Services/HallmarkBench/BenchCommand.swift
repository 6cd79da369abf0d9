import ArgumentParser

/// `hallmark bench …`: measurements side by side in one run.
package struct BenchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against the real broker and database.",
        subcommands: [
            BenchKafkaCommand.self, BenchCryptoCommand.self, BenchJSONCommand.self, BenchSignerCommand.self,
            BenchAuthorityCommand.self, BenchGatewayCommand.self, BenchAggregatorCommand.self, BenchEdgeCommand.self,
        ])

    package init() {}
}
