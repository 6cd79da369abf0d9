import Dispatch
import Foundation
import Logging
import libpq

/// One PostgreSQL connection (one libpq `PGconn`), closed when the last reference goes away.
///
/// A `PGconn` is not thread-safe and its calls block, so each connection owns a serial
/// `DispatchQueue`: every libpq call runs there, never on Swift's cooperative thread pool, and
/// callers suspend on a continuation until it finishes. Calls on one connection run one at a
/// time in submission order. Most code uses a ``PostgresPool`` instead of connections directly.
///
/// All methods throw ``PostgresError``. With
/// ``PostgresConfiguration/cancelsStatementsOnTaskCancellation``, cancelling the calling task
/// cancels its statement (it then throws with ``PostgresError/isQueryCanceled``); by default
/// statements run to completion regardless.
public final class PostgresConnection: @unchecked Sendable {
    /// A process-unique number, for logs.
    public let id: Int
    let logger: Logger
    // Only touched on `queue` (and in deinit, when nothing else can reach it).
    let connection: OpaquePointer
    /// The statements prepared on this connection (also only touched on `queue`).
    var statements = PreparedStatements()
    private let queue: DispatchQueue
    /// Where a transaction's body runs (``ConnectionThread``).
    let thread: ConnectionThread
    private let notices: NoticeSink
    private let canceller: QueryCanceller
    /// ``PostgresConfiguration/cancelsStatementsOnTaskCancellation``.
    let cancelsOnTaskCancellation: Bool
    /// Written on `queue` after every call, read by the pool when the connection comes back.
    private let health = Locked(Health())

    struct Health {
        var broken = false
        var idleOutsideTransaction = true
    }

    private static let nextID = Locked(0)

    init(
        id: Int, connection: OpaquePointer, queue: DispatchQueue, notices: NoticeSink,
        cancelsOnTaskCancellation: Bool, logger: Logger
    ) {
        self.cancelsOnTaskCancellation = cancelsOnTaskCancellation
        self.id = id
        self.connection = connection
        self.queue = queue
        self.notices = notices
        self.logger = logger
        self.canceller = QueryCanceller(connection: connection)
        self.thread = ConnectionThread(name: "hallmark.postgres.\(id)")
    }

    deinit {
        // PQfinish sends a Terminate message: do it on the connection's queue, not here.
        let handle = UncheckedHandle(pointer: connection)
        let notices = self.notices, canceller = self.canceller
        thread.shutDown()
        queue.async {
            PQfinish(handle.pointer)
            canceller.release()
            withExtendedLifetime(notices) {}
        }
    }

    /// Opens a connection; fails with ``PostgresError/Code/connectionFailed``.
    public static func connect(configuration: PostgresConfiguration, logger: Logger) async throws -> PostgresConnection {
        let id = nextID.withLock {
            $0 += 1; return $0
        }
        var connectionLogger = logger
        connectionLogger[metadataKey: "postgres.connection"] = "\(id)"
        let logger = connectionLogger
        let queue = DispatchQueue(label: "hallmark.postgres.connection.\(id)")
        let opened: Result<PostgresConnection, PostgresError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(
                    returning: Result { () throws(PostgresError) in
                        try open(configuration, id: id, queue: queue, logger: logger)
                    })
            }
        }
        let connection = try opened.get()
        logger.debug("connected to PostgreSQL", metadata: ["postgres.server": "\(configuration.redactedConnectionString)"])
        return connection
    }

    /// Runs one statement with bind parameters and returns its rows (empty for commands).
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await self.query(query, cancellable: cancelsOnTaskCancellation)
    }

    /// Runs one statement and returns the number of affected rows.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query).affectedRows
    }

    /// `cancellable: false` runs to completion even in a cancelled task (always used for
    /// clean-up: ROLLBACK, COMMIT, unlock).
    @discardableResult
    func query(_ query: PostgresQuery, cancellable: Bool) async throws -> PostgresRows {
        try query.validate()
        let (sql, binds) = query.render()
        let prepares = !query.isPlannedEachRun
        let work: @Sendable () throws(PostgresError) -> PostgresRows = {
            try self.executeParams(sql, binds, prepares: prepares)
        }
        return cancellable ? try await run(work) : try await runToCompletion(work)
    }

    /// Whether the caller runs on the connection's own thread, as a transaction's body does.
    package var isOnItsThread: Bool { thread.isCurrent }

    /// True once the connection is known to be unusable; a pool discards it.
    public var isBroken: Bool { health.withLock { $0.broken } }

    /// Reusable by a pool: not broken and not left inside a transaction.
    var isReusable: Bool { health.withLock { !$0.broken && $0.idleOutsideTransaction } }

    /// Runs static multi-statement SQL (a migration body) with the simple query protocol.
    /// Never pass anything built from runtime values: it has no bind parameters.
    func executeScript(_ sql: String) async throws {
        let work: @Sendable () throws(PostgresError) -> PostgresRows = {
            try self.ensureConnected()
            return try self.consume(PQexec(self.connection, sql))
        }
        _ = cancelsOnTaskCancellation ? try await run(work) : try await runToCompletion(work)
    }

    /// Reads whatever the server sent while the connection sat idle (e.g. the FATAL of a server
    /// shutdown) without blocking, and reports whether it is still usable.
    func checkAlive() async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async {
                for _ in 0..<2 where PQstatus(self.connection) == CONNECTION_OK {
                    if PQconsumeInput(self.connection) == 0 { break }
                    _ = PQisBusy(self.connection)  // parses buffered messages
                }
                self.recordHealth()
                continuation.resume(returning: !self.health.withLock { $0.broken })
            }
        }
    }

    /// Runs one blocking operation on the connection's queue. Cancelling the task sends the
    /// server a cancel request; the call then fails with SQLSTATE 57014.
    private func run<T: Sendable>(_ work: @escaping @Sendable () throws(PostgresError) -> T) async throws -> T {
        guard !Task.isCancelled else { throw Self.canceledBeforeSending }
        let operation = canceller.nextOperation()
        let result: Result<T, PostgresError> = await withTaskCancellationHandler {
            await onQueue {
                guard self.canceller.start(operation) else { return .failure(Self.canceledBeforeSending) }
                let result = Result(catching: work)
                self.canceller.finish()
                self.recordHealth()
                return result
            }
        } onCancel: {
            self.canceller.cancel(operation)
        }
        return try result.get()
    }

    func runToCompletion<T: Sendable>(_ work: @escaping @Sendable () throws(PostgresError) -> T) async throws -> T {
        let result: Result<T, PostgresError> = await onQueue {
            let result = Result(catching: work)
            self.recordHealth()
            return result
        }
        return try result.get()
    }

    /// Runs `call` on the connection's queue: from the connection's own thread (a
    /// transaction's body) with `sync`, which on the idle serial queue runs right here and
    /// still keeps the connection's calls one at a time; from anywhere else by hopping there
    /// and back.
    private func onQueue<T: Sendable>(
        _ call: @escaping @Sendable () -> Result<T, PostgresError>
    ) async -> Result<T, PostgresError> {
        if thread.isCurrent { return queue.sync(execute: call) }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: call()) }
        }
    }

    private static let canceledBeforeSending = PostgresError(
        code: .queryFailed, message: "canceled before it was sent", sqlState: "57014")

    private func recordHealth() {
        let broken = PQstatus(connection) != CONNECTION_OK
        let idle = PQtransactionStatus(connection) == PQTRANS_IDLE
        health.withLock { health in
            health.broken = health.broken || broken
            health.idleOutsideTransaction = idle
        }
    }

    func markBroken() { health.withLock { $0.broken = true } }

    func ensureConnected() throws(PostgresError) {
        guard PQstatus(connection) == CONNECTION_OK, !health.withLock({ $0.broken }) else {
            throw PostgresError(code: .connectionLost, message: "connection is closed")
        }
    }
}

/// A raw pointer that may cross into the queue's closure; ownership is handled by hand.
struct UncheckedHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
