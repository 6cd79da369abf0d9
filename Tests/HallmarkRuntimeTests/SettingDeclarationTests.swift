import HallmarkCore
import HallmarkKafka
import HallmarkRuntime
import Testing

/// Declared settings (``Setting``): one declaration gives the reader, the default, the
/// accepted values and the listing; per-stage names fall back to the service's.
@Suite("Declared settings", .timeLimit(.minutes(1)))
struct SettingDeclarationTests {
    static let batch = Setting.integer("HALLMARK_T_BATCH", default: 8, in: 1...64, doc: "a batch")

    @Test func aDeclarationReadsItsVariableWithinItsRange() throws {
        #expect(try Settings([:]).value(Self.batch) == 8)
        #expect(try Settings(["HALLMARK_T_BATCH": ""]).value(Self.batch) == 8)
        #expect(try Settings(["HALLMARK_T_BATCH": " 64 "]).value(Self.batch) == 64)
        #expect(throws: ConfigurationError(variable: "HALLMARK_T_BATCH", reason: "must be an integer in 1...64")) {
            try Settings(["HALLMARK_T_BATCH": "65"]).value(Self.batch)
        }
        #expect(try Settings([:]).valueIfSet(Self.batch) == nil)
    }

    @Test func durationsListInTheirUnitAndReadInIt() throws {
        let linger = Setting.milliseconds("HALLMARK_T_MS", default: .milliseconds(250), in: 0...1000, doc: "d")
        #expect(linger.description.defaultValue == "250")
        #expect(try Settings(["HALLMARK_T_MS": "10"]).value(linger) == .milliseconds(10))
        let sweep = Setting.seconds("HALLMARK_T_S", default: .seconds(30), in: 1...60, doc: "d")
        #expect(sweep.description.defaultValue == "30")
        #expect(try Settings(["HALLMARK_T_S": "5"]).value(sweep) == .seconds(5))
    }

    /// A secret's value is never shown, and its error (like every error) never echoes it.
    @Test func aSecretIsNeverShown() {
        let properties = KafkaConfiguration.Variable.properties
        #expect(properties.isSecret && properties.description.shown(in: [properties.name: "sasl.password=x"]) == "(set)")
        #expect(Self.batch.description.shown(in: ["HALLMARK_T_BATCH": "3"]) == "3")
        #expect(Self.batch.description.shown(in: [:]) == nil)
    }

    @Test func aStagesOwnFlowVariablesFallBackToTheServices() throws {
        let base = try StageConfiguration.fromEnvironment(
            ["HALLMARK_MAX_BATCH": "100", "HALLMARK_BATCH_WORKERS": "3"], service: "aggregator", inputs: [])
        let env = ["HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH": "7", "HALLMARK_AGGREGATOR_INTAKE_BATCH_LINGER_MS": "20"]
        let intake = try base.overriding(for: "intake", in: env)
        #expect(intake.maxBatch == 7 && intake.batchWorkers == 3 && intake.batchLinger == .milliseconds(20))
        #expect(try base.overriding(for: "tokens", in: env).maxBatch == 100)
        #expect(throws: ConfigurationError.self) {
            try base.overriding(for: "intake", in: ["HALLMARK_AGGREGATOR_INTAKE_LANE_DEPTH": "0"])
        }
        let names = StageConfiguration.Variable.flow(service: "aggregator", stage: "intake").map(\.name)
        #expect(names.contains("HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH") && names.count == 5)
    }

    /// Every listed variable is declared once, and the structs' defaults are the declarations'.
    @Test func listingsHaveNoTwinsAndDefaultsAgree() {
        let all = KafkaConfiguration.Variable.all + StageConfiguration.Variable.all
        #expect(Set(all.map(\.name)).count == all.count)
        let kafka = KafkaConfiguration()
        #expect(kafka.defaultPartitions == KafkaConfiguration.Variable.partitions.defaultValue)
        #expect(kafka.lingerMilliseconds == KafkaConfiguration.Variable.linger.defaultValue)
        let stage = StageConfiguration(service: "s", inputs: [])
        #expect(stage.maxInFlight == StageConfiguration.Variable.maxInFlight.defaultValue)
        #expect(stage.shutdownGrace == StageConfiguration.Variable.shutdownGrace.defaultValue)
        #expect(stage.maxMessageBytes == kafka.maxMessageBytes)
    }
}
