import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres

/// Requests a stage sent to another stage and still awaits replies to (request/reply between
/// stages: the aggregator asks the authority), in `<schema>.hallmark_pending`.
///
/// The requesting stage records a pending request in the same transaction as its own effects
/// (``record(_:correlationID:context:on:)``) and sends the request only after that commits, so a
/// crash between request and reply loses nothing: the reply still finds its row, and a request
/// never sent is re-sent by ``RequestRetrier``. A reply consumer joins a reply by its
/// `correlation_id` with one `DELETE … RETURNING` (``take(_:on:)``): a late reply (its request
/// given up) or a duplicate one finds no row and is ignored.
public struct PendingRequests: Sendable {
    /// The schema holding `hallmark_pending`.
    public let schema: String
    /// Re-send a request not answered within this time (under the same message id).
    public let resendAfter: Duration
    /// Give up on a request not answered within this time: ``RequestRetrier`` hands it to the
    /// stage's timeout handler, which answers with a typed outcome.
    public let giveUpAfter: Duration

    public init(schema: String, resendAfter: Duration, giveUpAfter: Duration) {
        self.schema = schema
        self.resendAfter = resendAfter
        self.giveUpAfter = giveUpAfter
    }

    /// The table, as a runtime migration the requesting service adds to its own.
    public static func migration(schema: String) -> PostgresMigrations.Migration {
        .init(
            version: StageDatabase.runtimeVersions + 2, name: "hallmark_pending",
            sql: """
                CREATE TABLE \(schema).hallmark_pending (
                    correlation_id uuid PRIMARY KEY,
                    request_topic text NOT NULL,
                    request_key bytea,
                    request bytea NOT NULL,
                    context bytea NOT NULL,
                    expired boolean NOT NULL DEFAULT false,
                    attempts integer NOT NULL DEFAULT 1,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    next_send_at timestamptz NOT NULL,
                    deadline timestamptz NOT NULL
                );
                CREATE INDEX hallmark_pending_next_send ON \(schema).hallmark_pending (next_send_at);
                """)
    }

    /// Records `request` (the message to send, whose envelope carries `correlationID`) with the
    /// requester's own `context` (kept as JSON, read back with ``PendingRequest/context(as:)``),
    /// in the caller's transaction. Returns the request, for the caller's outputs: it is sent
    /// once the transaction commits.
    public func record<Context: Encodable>(
        _ request: StageOutput, correlationID: UUID, context: Context,
        on connection: PostgresConnection
    ) async throws -> StageOutput {
        try await record(request, correlationID: correlationID, bytes: try JSONCoding.encode(context), on: connection)
    }

    /// Records many requests with one statement (see ``record(_:correlationID:context:on:)``).
    public func record<Context: Encodable>(
        _ requests: [(request: StageOutput, correlationID: UUID, context: Context)],
        on connection: PostgresConnection
    ) async throws {
        try await record(
            bytes: try requests.map { ($0.request, $0.correlationID, try JSONCoding.encode($0.context)) }, on: connection)
    }

    func record(
        _ request: StageOutput, correlationID: UUID, bytes context: [UInt8],
        on connection: PostgresConnection
    ) async throws -> StageOutput {
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).hallmark_pending
                (correlation_id, request_topic, request_key, request, context, next_send_at, deadline)
            VALUES (\(correlationID), \(request.topic), \(request.key.map { Data($0) }), \(Data(request.value)),
                    \(Data(context)), now() + \(interval: resendAfter), now() + \(interval: giveUpAfter))
            ON CONFLICT (correlation_id) DO NOTHING
            """)
        return request
    }

    func record(
        bytes requests: [(request: StageOutput, correlationID: UUID, context: [UInt8])],
        on connection: PostgresConnection
    ) async throws {
        guard !requests.isEmpty else { return }
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).hallmark_pending
                (correlation_id, request_topic, request_key, request, context, next_send_at, deadline)
            SELECT c, t, NULLIF(k, ''::bytea), r, x, now() + \(interval: resendAfter), now() + \(interval: giveUpAfter)
            FROM unnest(\(PostgresArray(requests.map(\.correlationID))), \(PostgresArray(requests.map(\.request.topic))),
                        \(PostgresArray(requests.map { Data($0.request.key ?? []) })),
                        \(PostgresArray(requests.map { Data($0.request.value) })),
                        \(PostgresArray(requests.map { Data($0.context) }))) AS p(c, t, k, r, x)
            ON CONFLICT (correlation_id) DO NOTHING
            """)
    }

    /// Joins replies: removes the waiting requests with these correlation ids and returns
    /// them. Ids with no waiting request (late, duplicate or unknown replies) are absent.
    public func take(_ correlationIDs: [UUID], on connection: PostgresConnection) async throws -> [UUID: PendingRequest] {
        guard !correlationIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            DELETE FROM \(unescaped: schema).hallmark_pending
            WHERE correlation_id = ANY(\(PostgresArray(correlationIDs))) AND NOT expired
            RETURNING correlation_id, context, attempts, created_at
            """)
        var out: [UUID: PendingRequest] = [:]
        for (id, context, attempts, created) in try rows.decode((UUID, Data, Int32, Date).self) {
            out[id] = PendingRequest(correlationID: id, context: [UInt8](context), attempts: Int(attempts), createdAt: created)
        }
        return out
    }

    /// Joins one reply (see ``take(_:on:)-8h2``).
    public func take(_ correlationID: UUID, on connection: PostgresConnection) async throws -> PendingRequest? {
        try await take([correlationID], on: connection)[correlationID]
    }
}

/// A request awaiting its reply, as the requester recorded it.
public struct PendingRequest: Sendable, Equatable {
    /// The request's `correlation_id` (its reply carries the same).
    public let correlationID: UUID
    /// The requester's own state, as recorded with the request (JSON; see ``context(as:)``).
    public let context: [UInt8]
    /// How many times the request was sent.
    public let attempts: Int
    /// When it was recorded.
    public let createdAt: Date

    public init(correlationID: UUID, context: [UInt8], attempts: Int, createdAt: Date) {
        self.correlationID = correlationID
        self.context = context
        self.attempts = attempts
        self.createdAt = createdAt
    }

    /// The requester's context, as ``PendingRequests/record(_:correlationID:context:on:)`` kept it.
    public func context<Context: Decodable>(as type: Context.Type) throws -> Context {
        try JSONCoding.decode(type, from: context)
    }
}
