import AggregatorCore
import AuthorityCore
import Testing

/// What harnesses and benches hand the processes they start reads back as the configuration
/// it came from.
@Suite(.timeLimit(.minutes(1)))
struct PlacementEnvironmentTests {
    @Test func aggregatorPlacementRoundTrips() throws {
        var c = AggregatorConfiguration()
        (c.schema, c.authorityID) = ("aggregator_x", "CANON_001")
        (c.submissionInput, c.submissionOutput, c.tokenRequests, c.tokenResults) = ("s.in", "s.out", "t.req", "t.res")
        (c.checkpoints, c.verifyInput, c.verifyOutput, c.auditTopic) = ("cp", "v.in", "v.out", "agg.audit")
        (c.claimInput, c.claimOutput) = ("c.in", "c.out")
        let back = try AggregatorConfiguration.fromEnvironment(c.placementEnvironment)
        #expect(back.topics == c.topics && back.schema == c.schema && back.authorityID == c.authorityID)
        // The variables marked as placing in its settings, and only those.
        let own = ["SCHEMA", "AUTHORITY_ID", "LOG_ORIGIN", "CHECKPOINTS"].map { "HALLMARK_AGGREGATOR_\($0)" }
        let topics = [
            "SUBMISSION_INPUT", "SUBMISSION_OUTPUT", "TOKEN_REQUESTS", "TOKEN_RESULTS", "VERIFY_INPUT", "VERIFY_OUTPUT",
            "CLAIM_INPUT", "CLAIM_OUTPUT",
        ]
        #expect(
            Set(c.placementEnvironment.keys)
                == Set(own + topics.map { "HALLMARK_AGGREGATOR_\($0)" } + ["HALLMARK_AUDIT_TOPIC", "HALLMARK_SECURITY_TOPIC"]))
    }

    @Test func authorityPlacementRoundTrips() throws {
        var c = AuthorityConfiguration()
        c.schema = "authority_x"
        (c.provisionInput, c.provisionOutput, c.tokenInput, c.tokenOutput) = ("p.in", "p.out", "t.in", "t.out")
        (c.adminInput, c.securityTopic, c.auditTopic) = ("admin", "security", "audit")
        let back = try AuthorityConfiguration.fromEnvironment(
            c.placementEnvironment.merging(
                ["HALLMARK_AUTHORITY_OPERATOR_KEYS": "k=\(String(repeating: "A", count: 43))="]) { a, _ in a })
        #expect(back.topics == c.topics && back.schema == c.schema && back.securityTopic == c.securityTopic)
        #expect(back.auditTopic == "audit")
        #expect(c.placementEnvironment["HALLMARK_PRIVACY_RESULTS_TOPIC"] == c.privacy.results)
        #expect(c.placementEnvironment.count == 10)
    }
}
