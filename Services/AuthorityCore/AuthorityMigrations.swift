import HallmarkPostgres
import HallmarkRuntime

/// The authority's tables. Secrets are sealed (REST) with the AAD binding
/// (`key_tables`/`master_key`/table id) and (`devices`/`nuc_hash`/serial).
package enum AuthorityMigrations {
    /// Migrations for `schema`, numbered from 1 (0 is the runtime's inbox), then the runtime's
    /// audit trail.
    package static func all(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "authority_tables",
                sql: """
                    CREATE TABLE \(schema).key_tables (
                        table_id integer PRIMARY KEY CHECK (table_id >= 0),
                        master_sealed bytea NOT NULL,
                        kek_version bigint NOT NULL,
                        retired boolean NOT NULL DEFAULT false,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX key_tables_kek ON \(schema).key_tables (kek_version);
                    CREATE TABLE \(schema).devices (
                        device_id bigserial PRIMARY KEY,
                        serial text NOT NULL UNIQUE,
                        nuc_index bytea UNIQUE,
                        nuc_sealed bytea,
                        kek_version bigint NOT NULL,
                        table_a integer NOT NULL,
                        table_b integer NOT NULL,
                        table_c integer NOT NULL,
                        device_family text,
                        blacklisted boolean NOT NULL DEFAULT false,
                        blacklist_reason text,
                        warned_at timestamptz,
                        provisioned_at timestamptz NOT NULL DEFAULT now(),
                        changed_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX devices_kek ON \(schema).devices (kek_version);
                    CREATE TABLE \(schema).seen_tokens (
                        token_hash bytea PRIMARY KEY,
                        message_id uuid NOT NULL,
                        expires_at timestamptz NOT NULL
                    );
                    CREATE INDEX seen_tokens_expiry ON \(schema).seen_tokens (expires_at);
                    CREATE TABLE \(schema).validation_counts (
                        device_id bigint NOT NULL,
                        hour timestamptz NOT NULL,
                        count integer NOT NULL,
                        PRIMARY KEY (device_id, hour)
                    );
                    """),
            .init(
                version: 2, name: "erased_devices",
                sql: """
                    CREATE TABLE \(schema).erased_devices (
                        serial_index bytea PRIMARY KEY CHECK (length(serial_index) = 32),
                        erased_at timestamptz NOT NULL DEFAULT now()
                    );
                    """),
            // The manufacturer CAs (DESIGN BM-CERT, ``DeviceCertificateIssuer``): each CA's
            // certificate and its key sealed under the KEK, bound to the certificate's
            // fingerprint; one issues, the others stay trusted until their date.
            .init(
                version: 3, name: "certificate_authorities",
                sql: """
                    CREATE TABLE \(schema).certificate_authorities (
                        fingerprint bytea PRIMARY KEY CHECK (length(fingerprint) = 32),
                        certificate bytea NOT NULL,
                        key_sealed bytea NOT NULL,
                        kek_version integer NOT NULL,
                        issuing boolean NOT NULL,
                        trusted_until timestamptz,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE UNIQUE INDEX certificate_authorities_issuing
                        ON \(schema).certificate_authorities (issuing) WHERE issuing;
                    """),
        ] + AuditTrail.migrations(schema: schema)
    }
}
