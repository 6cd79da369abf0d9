import HallmarkPostgres

/// The edge's schema: `receipts`, one row per submission it published (``ReceiptStore``).
package enum EdgeMigrations {
    package static func all(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "receipts",
                sql: """
                    CREATE TABLE \(schema).receipts (
                        receipt_id uuid PRIMARY KEY,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        result bytea
                    );
                    """)
        ]
    }
}
