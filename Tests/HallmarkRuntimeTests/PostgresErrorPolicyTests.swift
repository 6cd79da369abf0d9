import Foundation
import HallmarkPostgres
import Logging
import Testing

@testable import HallmarkRuntime

/// A rejected record's `detail` and the runtime's logs describe an error with
/// `ErrorPolicy.safeDescription`: for a PostgreSQL error that must hold no trace of the value the
/// server complained about.
@Suite("PostgreSQL errors in rejected records", .timeLimit(.minutes(2)))
struct PostgresErrorPolicyTests {
    @Test func aValueTheServerQuotesNeverReachesTheDetail() async throws {
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: Logger(label: "error-policy-test"))
        defer { pool.close() }
        let schema = "errpolicy_\(UUID().uuidString.prefix(8).lowercased())"
        try await pool.execute("CREATE SCHEMA \(unescaped: schema)")
        let input = "partner-key-7f3a9c-not-a-uuid"
        var caught: (any Error)?
        do {
            try await pool.execute("CREATE TABLE \(unescaped: schema).requests (id uuid PRIMARY KEY)")
            try await pool.execute("INSERT INTO \(unescaped: schema).requests VALUES (\(input)::uuid)")
        } catch {
            caught = error
        }
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        let error = try #require(caught, "the server accepted a malformed uuid")
        // 22P02 is a data exception: the stage rejects the message at once, with this detail.
        #expect(ErrorPolicy.isPermanent(error))
        let detail = StageRejection(.processingFailed, "failed permanently: \(ErrorPolicy.safeDescription(error))").detail
        #expect(detail.contains("22P02") && detail.contains("invalid_text_representation"), "\(detail)")
        #expect(!detail.contains("partner-key") && !detail.contains("7f3a9c"), "\(detail)")
    }
}
