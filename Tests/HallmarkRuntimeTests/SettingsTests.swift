import HallmarkCore
import HallmarkRuntime
import Testing

/// `Settings`, the one reader of `HALLMARK_…` variables: defaults, empty meaning unset,
/// ranges with their bounds, and errors that name the variable but never echo its value.
@Suite("Settings", .timeLimit(.minutes(1)))
struct SettingsTests {
    /// Expects `body` to throw a configuration error about `variable`.
    func expectRefused(
        _ variable: String, value: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        let error = #expect(
            throws: ConfigurationError.self, "\(variable)=\(value) was accepted",
            sourceLocation: sourceLocation
        ) { try body() }
        #expect(error?.variable == variable, sourceLocation: sourceLocation)
        #expect(error?.description == "\(variable): \(error?.reason ?? "")", sourceLocation: sourceLocation)
    }

    /// No reader's error holds the value it refused (a value may be a password).
    @Test func errorsNameTheVariableNeverTheValue() {
        let secret = "pa55 w0rd/s3cret!"
        let settings = Settings(["V": secret])
        let attempts: [() throws -> Void] = [
            { _ = try settings.integer("V", default: 1, in: 1...2) },
            { _ = try settings.milliseconds("V", default: .zero, in: 0...2) },
            { _ = try settings.seconds("V", default: .zero, in: 0...2) },
            { _ = try settings.flag("V", default: true) },
            { _ = try settings.topic("V", default: "d") },
            { _ = try settings.topics("V", default: []) },
            { _ = try settings.identifier("V", default: "d") },
        ]
        for (i, attempt) in attempts.enumerated() {
            let error = #expect(throws: ConfigurationError.self, "reader #\(i)") { try attempt() }
            #expect(error?.variable == "V", "reader #\(i)")
            for fragment in ["pa55", "w0rd", "s3cret"] {
                #expect(error.map { !$0.description.contains(fragment) } == true, "reader #\(i) echoes the value")
            }
        }
    }

    @Test func integersHaveDefaultsRangesAndBounds() throws {
        let name = "HALLMARK_X"
        #expect(try Settings([:]).integer(name, default: 7, in: 1...10) == 7)
        #expect(try Settings([name: ""]).integer(name, default: 7, in: 1...10) == 7, "empty is unset")
        #expect(try Settings([name: "1"]).integer(name, default: 7, in: 1...10) == 1)
        #expect(try Settings([name: "10"]).integer(name, default: 7, in: 1...10) == 10)
        #expect(try Settings([name: " 4 "]).integer(name, default: 7, in: 1...10) == 4)
        #expect(try Settings([:]).integer(name, in: 1...10) == nil)
        for bad in ["0", "11", "-1", "12abc", "4.5", "0x10", "99999999999999999999", "   "] {
            expectRefused(name, value: bad) { _ = try Settings([name: bad]).integer(name, default: 7, in: 1...10) }
        }
        let error = #expect(throws: ConfigurationError.self) { try Settings([name: "0"]).integer(name, in: 1...10) }
        #expect(error?.reason == "must be an integer in 1...10")
    }

    @Test func durations() throws {
        let settings = Settings(["HALLMARK_A_MS": "250", "HALLMARK_B_S": "3", "HALLMARK_C_MS": ""])
        #expect(try settings.milliseconds("HALLMARK_A_MS", default: .seconds(9), in: 0...1000) == .milliseconds(250))
        #expect(try settings.seconds("HALLMARK_B_S", default: .seconds(9), in: 1...5) == .seconds(3))
        #expect(try settings.milliseconds("HALLMARK_C_MS", default: .seconds(9), in: 0...1000) == .seconds(9))
        #expect(try settings.milliseconds("HALLMARK_UNSET_MS", default: .seconds(9), in: 0...1000) == .seconds(9))
        expectRefused("HALLMARK_A_MS", value: "250") {
            _ = try settings.milliseconds("HALLMARK_A_MS", default: .zero, in: 0...100)
        }
        expectRefused("HALLMARK_B_S", value: "3") { _ = try settings.seconds("HALLMARK_B_S", default: .zero, in: 4...5) }
    }

    @Test func flags() throws {
        for yes in ["1", "true", "TRUE", "yes", "On"] { #expect(try Settings(["F": yes]).flag("F", default: false)) }
        for no in ["0", "false", "No", "off"] { #expect(try !Settings(["F": no]).flag("F", default: true)) }
        #expect(try Settings(["F": ""]).flag("F", default: true))
        #expect(try !Settings([:]).flag("F", default: false))
        expectRefused("F", value: "maybe") { _ = try Settings(["F": "maybe"]).flag("F", default: true) }
    }

    @Test func stringsAndLists() {
        #expect(Settings(["S": ""]).string("S") == nil)
        #expect(Settings(["S": ""]).string("S", default: "d") == "d")
        #expect(Settings(["S": " v "]).string("S") == " v ")
        #expect(Settings(["L": " a, b,,c , "]).list("L", default: ["x"]) == ["a", "b", "c"])
        #expect(Settings(["L": ""]).list("L", default: ["x"]) == ["x"])
        #expect(Settings([:]).list("L", default: []) == [])
    }

    @Test func topicsAndIdentifiers() throws {
        let longest = String(repeating: "t", count: 249)
        #expect(try Settings([:]).topic("T", default: "hallmark.rejected") == "hallmark.rejected")
        #expect(try Settings(["T": ""]).topic("T", default: "d.t") == "d.t")
        #expect(try Settings(["T": "A-z_0.9"]).topic("T", default: "d") == "A-z_0.9")
        #expect(try Settings(["T": longest]).topic("T", default: "d") == longest)
        for bad in ["has space", "a/b", ".", "..", "é", longest + "t", "a,b"] {
            expectRefused("T", value: bad) { _ = try Settings(["T": bad]).topic("T", default: "d") }
        }
        #expect(try Settings(["T": "a, b"]).topics("T", default: []) == ["a", "b"])
        expectRefused("T", value: "b c") { _ = try Settings(["T": "a,b c"]).topics("T", default: []) }

        let longestID = "_" + String(repeating: "a", count: 62)
        #expect(try Settings(["I": "probe_1"]).identifier("I", default: "d") == "probe_1")
        #expect(try Settings(["I": longestID]).identifier("I", default: "d") == longestID)
        for bad in ["Probe", "1abc", "a-b", "a b", longestID + "a", "a;drop"] {
            expectRefused("I", value: bad) { _ = try Settings(["I": bad]).identifier("I", default: "d") }
        }
    }

    /// The stage's settings through the same reader: defaults, values, and refusals that name
    /// the variable.
    @Test func stageConfigurationReadsItsVariables() throws {
        let inputs = [StageInput(topic: "in", schemas: ["s.v1"])]
        let defaults = try StageConfiguration.fromEnvironment([:], service: "svc", inputs: inputs)
        #expect(defaults.maxInFlight == 64 && defaults.laneDepth == 8 && defaults.shutdownGrace == .seconds(20))
        #expect(defaults.groupID == "hallmark-svc" && defaults.rejectedTopic == "hallmark.rejected")
        let set = try StageConfiguration.fromEnvironment(
            [
                "HALLMARK_MAX_IN_FLIGHT": "3", "HALLMARK_LANE_DEPTH": "2", "HALLMARK_SHUTDOWN_GRACE_MS": "500",
                "HALLMARK_REPLY_TOPICS": "a,b", "HALLMARK_GROUP_ID": "", "HALLMARK_MAX_BATCH": "9",
                "HALLMARK_BATCH_LINGER_MS": "7",
            ],
            service: "svc", inputs: inputs)
        #expect(set.maxInFlight == 3 && set.laneDepth == 2 && set.shutdownGrace == .milliseconds(500))
        #expect(set.replyTopics == ["a", "b"] && set.groupID == "hallmark-svc" && set.maxBatch == 9)
        #expect(defaults.batchLinger == .milliseconds(50) && set.batchLinger == .milliseconds(7))
        for (variable, value) in [
            ("HALLMARK_MAX_IN_FLIGHT", "0"), ("HALLMARK_LANE_DEPTH", "65537"),
            ("HALLMARK_SHUTDOWN_GRACE_MS", "-1"), ("HALLMARK_MAX_MESSAGE_BYTES", "4095"),
            ("HALLMARK_REJECTED_TOPIC", "no spaces"), ("HALLMARK_BATCH_WORKERS", "1025"),
            ("HALLMARK_BATCH_LINGER_MS", "10001"),
        ] {
            expectRefused(variable, value: value) {
                _ = try StageConfiguration.fromEnvironment([variable: value], service: "svc", inputs: inputs)
            }
        }
    }

    /// A stage's own flow settings (issue 31): `HALLMARK_<SERVICE>_<STAGE>_<SETTING>` before
    /// `HALLMARK_<SETTING>`, one stage's not another's, checked the same way.
    @Test func aStageMaySetItsOwnFlowSettings() throws {
        let inputs = [StageInput(topic: "in", schemas: ["s.v1"])]
        let env = [
            "HALLMARK_MAX_BATCH": "9", "HALLMARK_BATCH_WORKERS": "3",
            "HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH": "200", "HALLMARK_AGGREGATOR_TOKENS_BATCH_WORKERS": "6",
            "HALLMARK_PROBE_ASK_SIDE_CAR_LANE_DEPTH": "5",
        ]
        let base = try StageConfiguration.fromEnvironment(env, service: "aggregator", inputs: inputs)
        let intake = try base.overriding(for: "intake", in: env)
        let tokens = try base.overriding(for: "tokens", in: env)
        let verify = try base.overriding(for: "verify", in: env)
        #expect(intake.maxBatch == 200 && intake.batchWorkers == 3)
        #expect(tokens.maxBatch == 9 && tokens.batchWorkers == 6)
        #expect(verify.maxBatch == 9 && verify.batchWorkers == 3 && verify.maxInFlight == base.maxInFlight)
        // Dashes in a service or stage name read as underscores.
        let probe = try StageConfiguration.fromEnvironment(env, service: "probe-ask", inputs: inputs)
        #expect(try probe.overriding(for: "side-car", in: env).laneDepth == 5)
        expectRefused("HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH", value: "0") {
            _ = try base.overriding(for: "intake", in: ["HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH": "0"])
        }
    }
}
