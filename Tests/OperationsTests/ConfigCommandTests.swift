import AggregatorCore
import AuthorityCore
import GatewayCore
import HallmarkCLICore
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import SignerCore
import Testing

/// `hallmark config`: the listing names every declared variable with its default and value
/// (a secret's hidden), and `--check` reads a service's configuration as it would start.
@Suite("hallmark config", .timeLimit(.minutes(1)))
struct ConfigCommandTests {
    @Test func theListingHasEveryDeclaredVariableAndHidesSecrets() {
        let text = ConfigCommand.listing(
            service: nil,
            environment: [
                "HALLMARK_SIGNER_ZIP_WORKERS": "3", "HALLMARK_KAFKA_PROPERTIES": "sasl.password=hunter2",
                "HALLMARK_GATEWAY_POSTGRES_URL": "postgresql://gateway:hunter3@db/hallmark",
            ])
        let declared =
            KafkaConfiguration.variables + StageConfiguration.variables + ServiceRunner.Variable.all
            + SignerConfiguration.variables + GatewayConfiguration.variables + AuthorityConfiguration.variables
            + AggregatorConfiguration.variables
            + ["signer", "gateway", "authority", "aggregator"].map { PostgresConfiguration.Variable.url(service: $0).description }
            + ConfigCommand.Service.allCases.map(\.postgresPoolSize.description)
        #expect(Set(declared.map(\.name)).count == declared.count, "a variable is declared twice")
        for v in declared { #expect(text.contains("\n\(v.name)"), "\(v.name) is not listed") }
        #expect(text.contains("HALLMARK_SIGNER_ZIP_WORKERS  (default 1)  = 3"))
        #expect(text.contains("HALLMARK_KAFKA_PROPERTIES  = (set)") && !text.contains("hunter2"))
        #expect(text.contains("HALLMARK_GATEWAY_POSTGRES_URL  = (set)") && !text.contains("hunter3"))
        // The authority's pool has a default of its own.
        #expect(
            text.contains("HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE  (default 16)")
                && text.contains("HALLMARK_SIGNER_POSTGRES_POOL_SIZE  (default 4)"))
        #expect(
            text.contains("HALLMARK_LOG_LEVEL  (default info)") && text.contains("HALLMARK_HEALTH_INTERVAL_MS  (default 5000)"))
    }

    static let database = ["HALLMARK_POSTGRES_URL": "postgresql://hallmark@127.0.0.1/hallmark"]

    @Test func checkReadsTheServicesConfigurationAndNamesABadVariable() throws {
        try ConfigCommand.check(.signer, Self.database)
        try ConfigCommand.check(.aggregator, ["HALLMARK_AGGREGATOR_POSTGRES_URL": "postgresql://aggregator@db/hallmark"])
        // The service-wide variables are read too: a service without a database, a bad level
        // or health file does not start.
        #expect(throws: ConfigurationError.self) { try ConfigCommand.check(.signer, [:]) }
        for (name, value) in [
            ("HALLMARK_LOG_LEVEL", "loud"), ("HALLMARK_HEALTH_FILE", "relative/path"),
            ("HALLMARK_INBOX_RETENTION_HOURS", "0"), ("HALLMARK_PRIVACY_RESULTS_TOPIC", "a topic"),
            ("HALLMARK_POSTGRES_POOL_SIZE", "0"), ("HALLMARK_SIGNER_POSTGRES_POOL_SIZE", "1001"),
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try ConfigCommand.check(.signer, Self.database.merging([name: value]) { $1 })
            }
            #expect(error?.variable == name)
        }
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigCommand.check(.signer, Self.database.merging(["HALLMARK_SIGNER_MAX_ZIP_ENTRIES": "s3cret-0"]) { $1 })
        }
        #expect(error?.variable == "HALLMARK_SIGNER_MAX_ZIP_ENTRIES" && !"\(error!)".contains("s3cret"))
        #expect(throws: ConfigurationError.self) { try ConfigCommand.check(.gateway, ["HALLMARK_MAX_BATCH": "0"]) }
    }
}
