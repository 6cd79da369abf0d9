import ArgumentParser

/// `hallmark`: the admin CLI (local stack helpers, benchmarks, crypto tools, probe stage).
public struct HallmarkCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hallmark",
        abstract: "Hallmark's admin command-line tool.",
        subcommands: [CryptoCommand.self, BenchCommand.self, ProbeCommand.self, TrafficCommand.self,
                      AuthorityCommand.self, ProvisionCommand.self])

    public init() {}
}

/// `hallmark bench …`: measurements side by side in one run.
public struct BenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against the real broker and database.",
        subcommands: [BenchKafkaCommand.self, BenchCryptoCommand.self, BenchSignerCommand.self,
                      BenchAuthorityCommand.self])

    public init() {}
}
