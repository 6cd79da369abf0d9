import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// Editors' claims (`claims`, ``AggregatorMigrations`` version 13; DESIGN BM-PROVENANCE): one
/// per final image, the first recorded, with its original and the claim as sent. Never logged:
/// a claim links an image to its original for provenance, and never makes it verified.
package struct ClaimStore: Sendable {
    /// The aggregator's schema.
    package let schema: String

    package init(schema: String) {
        self.schema = schema
    }

    /// A stored claim: its id and what it says.
    package struct Stored: Sendable, Hashable {
        package let id: UUID
        package let claim: ModificationClaim
    }

    /// Records the claims whose final image has none yet (the first of a batch wins), and
    /// returns the claim now held for each final image of the batch, by final hash (hex).
    func record(
        _ claims: [(id: UUID, claim: ModificationClaim)], on connection: PostgresConnection
    ) async throws
        -> [String: Stored]
    {
        guard !claims.isEmpty else { return [:] }
        let finals = try claims.map { try Hex.decode($0.claim.finalImageHash, length: 32) }
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).claims (final_hash, original_hash, modification_level, claim_id, claim)
            SELECT f, o, l::smallint, i, c
            FROM unnest(\(PostgresArray(finals)),
                        \(PostgresArray(try claims.map { try Hex.decode($0.claim.originalImageHash, length: 32) })),
                        \(PostgresArray(claims.map { Int64($0.claim.modificationLevel) })), \(PostgresArray(claims.map(\.id))),
                        \(PostgresArray(try claims.map { Data(try JSONCoding.encode($0.claim)) }))) AS c(f, o, l, i, c)
            ON CONFLICT (final_hash) DO NOTHING
            """)
        return try await held(finals, on: connection)
    }

    /// The claims held for these final images (32 bytes each), by final hash (hex).
    func held(_ finals: [Data], on connection: PostgresConnection) async throws -> [String: Stored] {
        guard !finals.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT claim_id, claim FROM \(unescaped: schema).claims WHERE final_hash = ANY(\(PostgresArray(finals)))
            """)
        return Dictionary(try Self.stored(rows).map { ($0.claim.finalImageHash, $0) }) { first, _ in first }
    }

    /// The claims whose original is this image (32 bytes), newest last, at most `limit`.
    func derived(from original: Data, limit: Int, on connection: PostgresConnection) async throws -> [Stored] {
        let rows = try await connection.query(
            """
            SELECT claim_id, claim FROM \(unescaped: schema).claims WHERE original_hash = \(original)
            ORDER BY created_at, final_hash LIMIT \(limit)
            """)
        return try Self.stored(rows)
    }

    /// The claims in `rows` (`claim_id`, `claim`).
    private static func stored(_ rows: PostgresRows) throws -> [Stored] {
        try rows.decode((UUID, Data).self).map { id, bytes in
            Stored(id: id, claim: try JSONCoding.decode(ModificationClaim.self, from: try JSONReader.parse([UInt8](bytes))))
        }
    }
}
