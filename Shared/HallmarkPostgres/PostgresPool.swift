import Logging

/// A bounded pool of PostgreSQL connections.
///
/// At most ``PostgresConfiguration/poolSize`` connections are open; callers beyond that wait in
/// FIFO order and are handed connections as they come back. Connections open lazily. A broken
/// connection (server restart, network failure) is discarded when it comes back or when it is
/// found dead at checkout, so the next checkout connects anew; the call that hit the failure
/// throws ``PostgresError/Code/connectionLost`` (see ``withRetry(attempts:initialBackoff:isolation:_:)``).
///
/// ```swift
/// let pool = PostgresPool(configuration: try .fromEnvironment(), logger: logger)
/// let rows = try await pool.query("SELECT name FROM signer.partners WHERE id = \(id)")
/// try await pool.transaction { conn in
///     try await conn.execute("UPDATE signer.partners SET name = \(name) WHERE id = \(id)")
/// }
/// pool.close()
/// ```
public final class PostgresPool: Sendable {
    /// The pool's configuration.
    public let configuration: PostgresConfiguration
    let logger: Logger
    fileprivate let state = Locked(State())

    fileprivate struct State {
        var idle: [PostgresConnection] = []
        /// Connections open or being opened, including those checked out.
        var open = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var closed = false
    }

    fileprivate struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Lease, any Error>
    }

    /// What a checkout gets: a connection, or the right to open one (a free slot).
    fileprivate enum Lease {
        case connection(PostgresConnection)
        case slot
    }

    /// A snapshot of the pool's occupancy.
    public struct Statistics: Sendable, Hashable {
        /// Open connections, idle or checked out (or being opened).
        public var open: Int
        /// Open connections not checked out.
        public var idle: Int
        /// Callers waiting for a connection.
        public var waiting: Int

        public init(open: Int, idle: Int, waiting: Int) {
            self.open = open
            self.idle = idle
            self.waiting = waiting
        }
    }

    /// Creates a pool; no connection is opened until the first checkout.
    public init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "hallmark.postgres")) {
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "postgres.server"] = "\(configuration.redactedConnectionString)"
        self.logger = logger
    }

    deinit { close() }

    /// The current occupancy.
    public var statistics: Statistics {
        state.withLock { Statistics(open: $0.open, idle: $0.idle.count, waiting: $0.waiters.count) }
    }

    /// Checks out a connection for the duration of `body` and returns it afterwards.
    ///
    /// Don't keep the connection beyond `body`. A connection left inside a transaction is
    /// discarded rather than reused.
    public func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await checkout()
        do {
            let value = try await body(connection)
            checkin(connection)
            return value
        } catch {
            checkin(connection)
            throw error
        }
    }

    /// Runs one statement on a pooled connection and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try await $0.query(query) }
    }

    /// Runs one statement on a pooled connection and returns the number of affected rows.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await withConnection { try await $0.execute(query) }
    }

    /// Closes idle connections, fails waiting callers with ``PostgresError/Code/poolClosed`` and
    /// closes checked-out connections as they come back. Later checkouts fail.
    public func close() {
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            let idle = state.idle, waiters = state.waiters
            state.open -= idle.count
            state.idle = []
            state.waiters = []
            return (idle, waiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: Self.closedError) }
        if !idle.isEmpty { logger.debug("pool closed", metadata: ["postgres.closed": "\(idle.count)"]) }
    }

    private static let closedError = PostgresError(code: .poolClosed, message: "the pool is closed")

    func checkout() async throws -> PostgresConnection {
        switch try await lease() {
        case .connection(let connection):
            if await connection.checkAlive() { return connection }
            // Keep the slot and replace the dead connection.
            logger.info("discarding a broken idle connection", metadata: ["postgres.connection": "\(connection.id)"])
        case .slot:
            break
        }
        do {
            return try await PostgresConnection.connect(configuration: configuration, logger: logger)
        } catch {
            freeSlot()
            throw error
        }
    }

    func checkin(_ connection: PostgresConnection) {
        let reusable = connection.isReusable
        if !reusable {
            logger.info(
                "discarding a connection",
                metadata: [
                    "postgres.connection": "\(connection.id)",
                    "postgres.reason": connection.isBroken ? "broken" : "left inside a transaction",
                ])
        }
        let handOff: (Waiter, Lease)? = state.withLock { state in
            guard reusable, !state.closed else { return state.takeSlot() }
            if state.waiters.isEmpty {
                state.idle.append(connection)
                return nil
            }
            return (state.waiters.removeFirst(), .connection(connection))
        }
        if let (waiter, lease) = handOff { waiter.continuation.resume(returning: lease) }
    }

    /// Gives a connection's slot to the longest waiter, or frees it.
    private func freeSlot() {
        if let (waiter, lease) = state.withLock({ $0.takeSlot() }) { waiter.continuation.resume(returning: lease) }
    }

    private func lease() async throws -> Lease {
        let waiterID = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let poolSize = configuration.poolSize
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                let immediate: Result<Lease, any Error>? = state.withLock { state in
                    if state.closed { return .failure(Self.closedError) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // Most recently used first: it is the likeliest to be alive and warm.
                    if let connection = state.idle.popLast() { return .success(.connection(connection)) }
                    if state.open < poolSize {
                        state.open += 1
                        return .success(.slot)
                    }
                    state.waiters.append(Waiter(id: waiterID, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == waiterID }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

extension PostgresPool.State {
    /// A slot was given up: hand it to the first waiter (who will connect), or count it free.
    fileprivate mutating func takeSlot() -> (PostgresPool.Waiter, PostgresPool.Lease)? {
        if !closed, !waiters.isEmpty { return (waiters.removeFirst(), .slot) }
        open -= 1
        return nil
    }
}
