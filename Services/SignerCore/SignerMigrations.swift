import HallmarkPostgres
import HallmarkRuntime

/// The signer's tables (the runtime's inbox is version 0), and the runtime's audit trail.
package enum SignerMigrations {
    /// `replay`: MACs accepted within the window, by partner. A MAC is not a secret; no
    /// secret is ever stored in the database.
    package static func all(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "replay",
                sql: """
                    CREATE TABLE \(schema).replay (
                        partner_id text NOT NULL,
                        mac text NOT NULL,
                        expires_at timestamptz NOT NULL,
                        message_id uuid NOT NULL,
                        PRIMARY KEY (partner_id, mac)
                    );
                    CREATE INDEX replay_expires_at ON \(schema).replay (expires_at);
                    """)
        ] + AuditTrail.migrations(schema: schema)
    }
}
