import HallmarkPostgres
import HallmarkRuntime

/// The gateway's tables: E2EE-1 sessions, whose key is sealed (REST) with the AAD binding
/// (`e2ee_sessions`/`session_key`/session id). Counters start at −1: nothing accepted or sent.
/// Each row made (a new session, or an id taken again) gets a new `generation`, which the
/// counter statements match, so a key cached for a closed session never counts for the next.
package enum GatewayMigrations {
    /// Migrations for `schema`, numbered from 1 (0 is the runtime's inbox).
    package static func all(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "e2ee_sessions",
                sql: """
                    CREATE TABLE \(schema).e2ee_sessions (
                        session_id text PRIMARY KEY,
                        sealed_key bytea NOT NULL,
                        gateway_public_key bytea NOT NULL,
                        recv_counter bigint NOT NULL DEFAULT -1,
                        send_counter bigint NOT NULL DEFAULT -1,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        expires_at timestamptz NOT NULL
                    );
                    CREATE INDEX e2ee_sessions_expiry ON \(schema).e2ee_sessions (expires_at);
                    """),
            .init(
                version: 2, name: "e2ee_session_generation",
                sql: """
                    CREATE SEQUENCE \(schema).e2ee_session_generation;
                    ALTER TABLE \(schema).e2ee_sessions
                        ADD COLUMN generation bigint NOT NULL DEFAULT nextval('\(schema).e2ee_session_generation');
                    """),
        ] + AuditTrail.migrations(schema: schema)
    }
}
