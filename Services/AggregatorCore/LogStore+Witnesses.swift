import Foundation
import HallmarkCrypto
import HallmarkPostgres

extension LogStore {
    /// The size a witness (by its vkey) last cosigned for this log, nil before its first.
    package func witnessSize(_ witness: NoteVerifierKey, on connection: PostgresConnection) async throws -> UInt64? {
        let rows = try await connection.query(
            """
            SELECT size FROM \(unescaped: schema).witness_sizes WHERE witness = \(witness.description)
            """)
        guard let size = try rows.decode(Int64.self).first else { return nil }
        return UInt64(size)
    }

    /// Keeps a witness's cosignature lines for the checkpoint of `size`, and that size as the
    /// witness's (never lowering it).
    package func keep(
        cosignatures lines: [SignedNote.Signature], size: UInt64, by witness: NoteVerifierKey,
        on connection: PostgresConnection
    ) async throws {
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).cosignatures (tree_size, witness, lines)
            VALUES (\(Int64(size)), \(witness.description), \(lines.map(\.line).joined()))
            ON CONFLICT (tree_size, witness) DO UPDATE SET lines = EXCLUDED.lines
            """)
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).witness_sizes (witness, size) VALUES (\(witness.description), \(Int64(size)))
            ON CONFLICT (witness) DO UPDATE SET size = GREATEST(\(unescaped: schema).witness_sizes.size, EXCLUDED.size)
            """)
    }
}
