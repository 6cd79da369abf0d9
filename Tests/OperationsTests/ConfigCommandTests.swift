import AggregatorCore
import AuthorityCore
import GatewayCore
import HallmarkCLICore
import HallmarkCore
import HallmarkKafka
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
            ])
        let declared =
            KafkaConfiguration.Variable.all + StageConfiguration.Variable.all + SignerConfiguration.Variable.all
            + GatewayConfiguration.Variable.all + AuthorityConfiguration.Variable.all + AggregatorConfiguration.Variable.all
        #expect(Set(declared.map(\.name)).count == declared.count, "a variable is declared twice")
        for v in declared { #expect(text.contains("\n\(v.name)"), "\(v.name) is not listed") }
        #expect(text.contains("HALLMARK_SIGNER_ZIP_WORKERS  (default 1)  = 3"))
        #expect(text.contains("HALLMARK_KAFKA_PROPERTIES  = (set)") && !text.contains("hunter2"))
    }

    @Test func checkReadsTheServicesConfigurationAndNamesABadVariable() throws {
        try ConfigCommand.check(.signer, [:])
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigCommand.check(.signer, ["HALLMARK_SIGNER_MAX_ZIP_ENTRIES": "s3cret-0"])
        }
        #expect(error?.variable == "HALLMARK_SIGNER_MAX_ZIP_ENTRIES" && !"\(error!)".contains("s3cret"))
        #expect(throws: ConfigurationError.self) { try ConfigCommand.check(.gateway, ["HALLMARK_MAX_BATCH": "0"]) }
    }
}
