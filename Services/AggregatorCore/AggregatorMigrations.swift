import HallmarkPostgres
import HallmarkRuntime

/// The aggregator's tables.
///
/// - `submissions`: one row per submission id, what the log needs of it (its hashes, capture
///   time, where its answer goes, its id as written) and, once answered, the answer's bytes,
///   so a submission sent again under the same id gets the same answer; the digest of its
///   message tells that from the id reused for other bytes. No token is kept; since version 12
///   its `gps_hash` and `owner_hash` are, until the log writer moves them to its leaves.
/// - the log writer's queue is `submissions` itself (version 2): a validated submission is
///   `queued` with a `queued_seq`, found through a partial index; a separate `log_queue` table
///   cost an insert and a delete per bundle.
/// - `leaves`: the BM-LOG records by leaf index; an image hash is logged once. Since version
///   12 each row also keeps the `gps_hash` and `owner_hash` its submission carried
///   (``Attribution``): beside the record, not in it.
/// - `node_blocks` (version 8; `nodes` before): every perfect subtree root (level 0: leaf
///   hashes), 64 consecutive nodes of a level to a row (`LogStore+NodeBlocks.swift`), so
///   inclusion and consistency proofs and the frontier take O(log² n) lookups, never a scan of
///   the leaves, and a bundle writes a row per 64 nodes instead of one per node.
/// - `checkpoints`: each batch's signed tree head.
/// - `capture_tokens` (with its hashes in its row since version 9; `capture_hashes` before):
///   what lets a derived image share its capture's token (``CaptureTokens``), kept for the
///   window; a derived submission `awaits` its token's root. Since version 11 a token used once
///   is in its root's `submissions` row alone (`capture_token`, `capture_hashes`).
/// - `provenance_waits`: submissions whose parent is not known yet, for the window
///   (``ParentWaits``).
/// - `claims` (version 13): editors' claims (``ClaimStore``), one per final image: never logged.
/// - the runtime's audit trail: checkpoint key changes (``KeyRotationRecorder``).
package enum AggregatorMigrations {
    /// Migrations for `schema`: the aggregator's own from 1, then the runtime's ordered writer
    /// and audit trail. (The runtime's `hallmark_pending`, applied before version 10, is gone.)
    package static func all(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "transparency_log",
                sql: """
                    CREATE TABLE \(schema).submissions (
                        submission_id uuid PRIMARY KEY,
                        status text NOT NULL CHECK (status IN ('validating', 'queued', 'answered')),
                        entries bytea NOT NULL,
                        captured_at bigint NOT NULL,
                        correlation_id text NOT NULL,
                        reply_topic text NOT NULL,
                        reply_key bytea,
                        result bytea,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE TABLE \(schema).log_queue (
                        seq bigserial PRIMARY KEY,
                        submission_id uuid NOT NULL UNIQUE REFERENCES \(schema).submissions
                    );
                    CREATE TABLE \(schema).leaves (
                        leaf_index bigint PRIMARY KEY CHECK (leaf_index >= 0),
                        image_hash bytea NOT NULL UNIQUE CHECK (length(image_hash) = 32),
                        captured_at bigint NOT NULL,
                        modification_level smallint NOT NULL,
                        parent_hash bytea CHECK (parent_hash IS NULL OR length(parent_hash) = 32)
                    );
                    CREATE TABLE \(schema).nodes (
                        level bigint NOT NULL,
                        idx bigint NOT NULL,
                        hash bytea NOT NULL,
                        PRIMARY KEY (level, idx)
                    );
                    CREATE TABLE \(schema).checkpoints (
                        tree_size bigint PRIMARY KEY CHECK (tree_size > 0),
                        root_hash bytea NOT NULL,
                        signed_at bigint NOT NULL,
                        signature bytea NOT NULL,
                        key_id text NOT NULL
                    );
                    """),
            .init(
                version: 2, name: "queue_in_submissions",
                sql: """
                    CREATE SEQUENCE \(schema).queued_seq;
                    ALTER TABLE \(schema).submissions ADD COLUMN queued_seq bigint;
                    UPDATE \(schema).submissions s SET queued_seq = q.n
                    FROM (SELECT submission_id, nextval('\(schema).queued_seq') AS n
                          FROM (SELECT submission_id FROM \(schema).log_queue ORDER BY seq) o) q
                    WHERE s.submission_id = q.submission_id;
                    ALTER TABLE \(schema).submissions
                        ADD CHECK (status <> 'queued' OR queued_seq IS NOT NULL);
                    CREATE INDEX submissions_queued ON \(schema).submissions (queued_seq) WHERE status = 'queued';
                    DROP TABLE \(schema).log_queue;
                    """),
            // The id as the submission wrote it (answers carry it so; a uuid reads back lower case)
            // and the SHA-256 of its message, which tells a redelivery from an id reused for
            // other bytes. Rows from before have neither: they answer in lower case and any
            // bytes under their id count as a redelivery.
            .init(
                version: 3, name: "submission_request_id_and_digest",
                sql: """
                    ALTER TABLE \(schema).submissions ADD COLUMN request_id text, ADD COLUMN digest bytea;
                    """),
            // Each checkpoint's C2SP signed note, as signed (checkpoints from before have none).
            .init(
                version: 4, name: "checkpoint_notes",
                sql: """
                    ALTER TABLE \(schema).checkpoints ADD COLUMN note text;
                    """),
            // Witnesses (C2SP tlog-witness): the size each last cosigned, and their cosignature
            // lines per checkpoint, served after the log's own signatures.
            .init(
                version: 5, name: "witness_cosignatures",
                sql: """
                    CREATE TABLE \(schema).witness_sizes (witness text PRIMARY KEY, size bigint NOT NULL);
                    CREATE TABLE \(schema).cosignatures (
                        tree_size bigint NOT NULL,
                        witness text NOT NULL,
                        lines text NOT NULL,
                        PRIMARY KEY (tree_size, witness)
                    );
                    """),
            // Derived images under their capture's token (``CaptureTokens``): keyed digests of
            // tokens and their hashes for the window, and the root a derived submission awaits.
            .init(
                version: 6, name: "capture_tokens",
                sql: """
                    CREATE TABLE \(schema).capture_tokens (
                        token_digest bytea PRIMARY KEY,
                        root uuid NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE TABLE \(schema).capture_hashes (
                        token_digest bytea NOT NULL REFERENCES \(schema).capture_tokens ON DELETE CASCADE,
                        hash_digest bytea NOT NULL,
                        level smallint NOT NULL,
                        PRIMARY KEY (token_digest, hash_digest)
                    );
                    ALTER TABLE \(schema).submissions ADD COLUMN awaits uuid;
                    CREATE INDEX submissions_awaits ON \(schema).submissions (awaits) WHERE awaits IS NOT NULL;
                    """),
            // Submissions waiting for a parent not known yet (``ParentWaits``): the token request
            // to send once it is (the token is kept only while it waits, as a pending request
            // keeps it), the keyed digest of its token, its parents (raw, for the log, and keyed,
            // for the token's hashes) and when it is refused if they never come.
            .init(
                version: 7, name: "provenance_waits",
                sql: """
                    CREATE TABLE \(schema).provenance_waits (
                        submission_id uuid PRIMARY KEY REFERENCES \(schema).submissions ON DELETE CASCADE,
                        due timestamptz NOT NULL,
                        request bytea NOT NULL,
                        correlation_id uuid NOT NULL,
                        token_digest bytea,
                        parents bytea[] NOT NULL,
                        parent_digests bytea[] NOT NULL
                    );
                    """),
            // The tree's nodes 64 to a row (``LogStore/blockWidth``): `nodes` wrote two rows a
            // leaf. Blocks stay in their rows (a tuple of up to 8,160 bytes is never moved to
            // TOAST), so a node is read as a slice of its row and a batch rewrites at most a
            // block's 2 kB per level it ends in.
            .init(
                version: 8, name: "node_blocks",
                sql: """
                    CREATE TABLE \(schema).node_blocks (
                        level bigint NOT NULL CHECK (level >= 0),
                        block bigint NOT NULL CHECK (block >= 0),
                        hashes bytea NOT NULL CHECK (length(hashes) BETWEEN 32 AND 2048 AND length(hashes) % 32 = 0),
                        PRIMARY KEY (level, block)
                    ) WITH (toast_tuple_target = 8160);
                    ALTER TABLE \(schema).node_blocks ALTER COLUMN hashes SET STORAGE MAIN;
                    INSERT INTO \(schema).node_blocks (level, block, hashes)
                    SELECT level, idx / 64, string_agg(hash, ''::bytea ORDER BY idx)
                    FROM \(schema).nodes GROUP BY level, idx / 64;
                    DROP TABLE \(schema).nodes;
                    """),
            // A token's hashes in its own row (``CaptureTokens/pack(_:)``: 32-byte keyed digest
            // and level byte each): `capture_hashes` cost a row a bundle beside the token's, and
            // its foreign key a lookup per row.
            .init(
                version: 9, name: "capture_hashes_in_tokens",
                sql: """
                    ALTER TABLE \(schema).capture_tokens ADD COLUMN hashes bytea NOT NULL DEFAULT ''::bytea
                        CHECK (length(hashes) % 33 = 0);
                    UPDATE \(schema).capture_tokens t SET hashes = h.packed
                    FROM (SELECT token_digest,
                                 string_agg(hash_digest || decode(lpad(to_hex(LEAST(level, 255)::int), 2, '0'), 'hex'), ''::bytea)
                                     AS packed
                          FROM \(schema).capture_hashes GROUP BY token_digest) h
                    WHERE t.token_digest = h.token_digest;
                    ALTER TABLE \(schema).capture_tokens ALTER COLUMN hashes DROP DEFAULT;
                    DROP TABLE \(schema).capture_hashes;
                    """),
            // A submission's token request in its own row while the authority answers
            // (``SubmissionLedger/claimDue(limit:on:)``): `hallmark_pending` wrote two rows a
            // bundle (recorded, taken) beside the submission's. Requests pending at the upgrade
            // move into their rows, given-up ones (`ask` empty) still to be answered.
            .init(
                version: 10, name: "token_requests_in_submissions",
                sql: """
                    ALTER TABLE \(schema).submissions
                        ADD COLUMN asked uuid, ADD COLUMN ask bytea, ADD COLUMN ask_attempts integer,
                        ADD COLUMN ask_next timestamptz, ADD COLUMN ask_deadline timestamptz,
                        ADD CHECK (ask IS NULL OR (asked IS NOT NULL AND ask_attempts IS NOT NULL
                                                   AND ask_next IS NOT NULL AND ask_deadline IS NOT NULL));
                    CREATE INDEX submissions_asked ON \(schema).submissions (asked) WHERE ask IS NOT NULL;
                    CREATE INDEX submissions_ask_next ON \(schema).submissions (ask_next) WHERE ask_next IS NOT NULL;
                    DO $$ BEGIN
                        IF to_regclass('\(schema).hallmark_pending') IS NOT NULL THEN
                            EXECUTE $q$
                                UPDATE \(schema).submissions s SET
                                    asked = p.correlation_id,
                                    ask = CASE WHEN p.expired THEN NULL ELSE p.request END,
                                    ask_attempts = p.attempts, ask_next = least(p.next_send_at, p.deadline),
                                    ask_deadline = p.deadline
                                FROM (SELECT *, CASE WHEN get_byte(context, 0) = 123
                                                     THEN (convert_from(context, 'UTF8')::jsonb ->> 'submission')::uuid
                                                     ELSE convert_from(context, 'UTF8')::uuid END AS submission
                                      FROM \(schema).hallmark_pending) p
                                WHERE s.submission_id = p.submission AND (p.expired OR s.status = 'validating')
                            $q$;
                            DROP TABLE \(schema).hallmark_pending;
                        END IF;
                    END $$;
                    """),
            // A token's root carries the token in its own row (``CaptureTokens``): the keyed
            // digests of the token and of the root's own hashes, written with the submission,
            // until a second use of the token writes its `capture_tokens` row. A capture of one
            // image (every bundle of a token-mode camera that sends no processed image) wrote
            // that row beside its submission's.
            .init(
                version: 11, name: "capture_roots_in_submissions",
                sql: """
                    ALTER TABLE \(schema).submissions
                        ADD COLUMN capture_token bytea, ADD COLUMN capture_hashes bytea,
                        ADD CHECK ((capture_token IS NULL) = (capture_hashes IS NULL)
                                   AND length(capture_hashes) % \(CaptureTokens.packedHashSize) = 0);
                    CREATE INDEX submissions_capture_token ON \(schema).submissions (capture_token)
                        WHERE capture_token IS NOT NULL;
                    """),
            // What a camera said beside its hashes (DESIGN BM-PROVENANCE, ``Attribution``): held
            // with the submission until it is logged, then with each leaf it logged. Columns, not
            // rows: a bundle without them writes nothing more.
            .init(
                version: 12, name: "attribution",
                sql: """
                    ALTER TABLE \(schema).submissions
                        ADD COLUMN gps_hash bytea CHECK (gps_hash IS NULL OR length(gps_hash) = 32),
                        ADD COLUMN owner_hash bytea CHECK (owner_hash IS NULL OR length(owner_hash) = 32);
                    ALTER TABLE \(schema).leaves
                        ADD COLUMN gps_hash bytea CHECK (gps_hash IS NULL OR length(gps_hash) = 32),
                        ADD COLUMN owner_hash bytea CHECK (owner_hash IS NULL OR length(owner_hash) = 32);
                    """),
            // Editors' claims (DESIGN BM-PROVENANCE, ``ClaimStore``): one per final image, the
            // first recorded; found from either end of the edit.
            .init(
                version: 13, name: "claims",
                sql: """
                    CREATE TABLE \(schema).claims (
                        final_hash bytea PRIMARY KEY CHECK (length(final_hash) = 32),
                        original_hash bytea NOT NULL CHECK (length(original_hash) = 32),
                        modification_level smallint NOT NULL,
                        claim_id uuid NOT NULL,
                        claim bytea NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX claims_original ON \(schema).claims (original_hash);
                    """),
            // A certificate bundle's signed form (DESIGN BM-CERT), which its answer names; never
            // the certificate or the signature.
            .init(
                version: 14, name: "signed_fields",
                sql: """
                    ALTER TABLE \(schema).submissions
                        ADD COLUMN signed_fields text CHECK (signed_fields IN ('canonical', 'image_hash_timestamp'));
                    """),
        ]
            + OrderedWriter<TransparencyLog>.migrations(schema: schema) + AuditTrail.migrations(schema: schema)
    }
}
