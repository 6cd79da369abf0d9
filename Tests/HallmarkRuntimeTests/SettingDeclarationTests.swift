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
    @Test func aSecretIsNeverShown() throws {
        let properties = try #require(KafkaConfiguration.variables.first { $0.name == "HALLMARK_KAFKA_PROPERTIES" })
        #expect(properties.isSecret && properties.shown(in: [properties.name: "sasl.password=x"]) == "(set)")
        #expect(Self.batch.description.shown(in: ["HALLMARK_T_BATCH": "3"]) == "3")
        #expect(Self.batch.description.shown(in: [:]) == nil)
    }

    @Test func aStagesOwnFlowVariablesFallBackToTheServices() throws {
        let base = try StageConfiguration.fromEnvironment(
            ["HALLMARK_MAX_BATCH": "100", "HALLMARK_BATCH_WORKERS": "3"], service: "aggregator", inputs: [])
        let env = [
            "HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH": "7", "HALLMARK_AGGREGATOR_INTAKE_BATCH_LINGER_MS": "20",
            "HALLMARK_AGGREGATOR_INTAKE_BATCH_PACE_MS": "35",
        ]
        let intake = try base.overriding(for: "intake", in: env)
        #expect(intake.maxBatch == 7 && intake.batchWorkers == 3 && intake.batchLinger == .milliseconds(20))
        #expect(intake.batchPace == .milliseconds(35) && base.batchPace == .milliseconds(20))
        #expect(try base.overriding(for: "tokens", in: env).maxBatch == 100)
        #expect(throws: ConfigurationError.self) {
            try base.overriding(for: "intake", in: ["HALLMARK_AGGREGATOR_INTAKE_LANE_DEPTH": "0"])
        }
        let names = StageConfiguration.Variable.flow(service: "aggregator", stage: "intake").map(\.name)
        #expect(names.contains("HALLMARK_AGGREGATOR_INTAKE_BATCH_PACE_MS") && names.count == 6)
    }

    /// Every listed variable is declared once, and the structs' defaults are the declarations'.
    @Test func listingsHaveNoTwinsAndDefaultsAgree() {
        let all = KafkaConfiguration.variables + StageConfiguration.variables
        #expect(Set(all.map(\.name)).count == all.count)
        let kafka = KafkaConfiguration()
        #expect(kafka.defaultPartitions == 4 && kafka.lingerMilliseconds == 5)
        #expect(KafkaConfiguration.variables.first { $0.name == "HALLMARK_KAFKA_PARTITIONS" }?.defaultValue == "4")
        let stage = StageConfiguration(service: "s", inputs: [])
        #expect(stage.maxInFlight == StageConfiguration.Variable.maxInFlight.defaultValue)
        #expect(stage.shutdownGrace == StageConfiguration.Variable.shutdownGrace.defaultValue)
        #expect(stage.maxMessageBytes == kafka.maxMessageBytes)
    }

    /// A configuration declared as bindings: the listing, the defaults, the reading (converted
    /// where declared so) and the placement all come from its one list.
    @Test func aBindingListGivesTheListingDefaultsReadingAndPlacement() throws {
        #expect(Example.variables.map(\.name) == ["HALLMARK_T_TOPIC", "HALLMARK_T_HOURS", "HALLMARK_T_FILE"])
        let defaults = Example()
        #expect(defaults.topic == "t.in" && defaults.retention == .seconds(7200) && defaults.file == nil)
        #expect(defaults.security == "hallmark.security" && defaults.extra == nil)
        let read = try Example().applying(
            Settings(["HALLMARK_T_HOURS": "3", "HALLMARK_T_FILE": "/f", "HALLMARK_SECURITY_TOPIC": "s", "HALLMARK_T_X": "x"]))
        #expect(read.retention == .seconds(10_800) && read.file == "/f" && read.security == "s" && read.extra == "x")
        #expect(Example.variable(\.retention) == "HALLMARK_T_HOURS")
        #expect(try Example.value(\.retention, in: Settings(["HALLMARK_T_HOURS": "1"])) == .seconds(3600))
        #expect(defaults.placementEnvironment == ["HALLMARK_T_TOPIC": "t.in", "HALLMARK_SECURITY_TOPIC": "hallmark.security"])
        #expect(throws: ConfigurationError(variable: "HALLMARK_T_HOURS", reason: "must be an integer in 1...24")) {
            try Example().applying(Settings(["HALLMARK_T_HOURS": "25"]))
        }
    }

    struct Example: DeclaredSettings {
        var topic: String = declared(\.topic)
        var retention: Duration = declared(\.retention)
        var file: String? = declared(\.file)
        var security: String = declared(\.security)
        var extra: String?

        static let settings: [ConfigurationSetting<Self>] = [
            .bind(\.topic, .topic("HALLMARK_T_TOPIC", default: "t.in", doc: "a topic"), placing: true),
            .bind(\.retention, .integer("HALLMARK_T_HOURS", default: 2, in: 1...24, doc: "hours"), as: { .seconds(3600 * $0) }),
            .bind(\.file, .optionalText("HALLMARK_T_FILE", doc: "a file")),
            .shared(\.security, StageConfiguration.Variable.securityTopic, placing: true),
            .custom([]) { c, s throws(ConfigurationError) in c.extra = s.string("HALLMARK_T_X") },
        ]
    }
}
