import Foundation
import HallmarkCore
import HallmarkPostgres
import Testing

/// `PostgresListener`: what is notified on its channel reaches it, in order, and it listens
/// again (and says so) when its connection is ended under it.
@Suite("Listening to notifications", .timeLimit(.minutes(1)))
struct ListenerTests {
    enum Event: Equatable, Sendable {
        case listening
        case heard([String])
    }

    /// Runs a listener on a channel of its own; its events arrive on the stream.
    private func withListener(
        _ body: (_ channel: String, _ events: AsyncStream<Event>.AsyncIterator, _ pool: PostgresPool) async throws -> Void
    ) async throws {
        let pool = try TestDatabase.makePool(poolSize: 2)
        defer { pool.close() }
        let channel = TestDatabase.randomSchema()
        let (events, sink) = AsyncStream<Event>.makeStream()
        let listener = PostgresListener(
            configuration: pool.configuration, channel: channel, logger: TestDatabase.logger,
            retry: RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(100)))
        let task = Task {
            await listener.run(listening: { sink.yield(.listening) }, heard: { sink.yield(.heard($0)) })
            sink.finish()
        }
        defer { task.cancel() }
        try await ServerGate.withShared { try await body(channel, events.makeAsyncIterator(), pool) }
        task.cancel()
        await task.value
    }

    /// The payloads heard until `count` have come (a transaction's notifications may come in one
    /// batch or several); fails on a new `listening` meanwhile.
    private func payloads(_ count: Int, from events: inout AsyncStream<Event>.AsyncIterator) async -> [String] {
        var heard: [String] = []
        while heard.count < count, let event = await events.next() {
            guard case .heard(let payloads) = event else {
                Issue.record("listened again before hearing \(count)")
                return heard
            }
            heard += payloads
        }
        return heard
    }

    @Test func whatIsNotifiedOnItsChannelArrivesInOrderAndNothingElse() async throws {
        try await withListener { channel, events, pool in
            var events = events
            #expect(await events.next() == .listening)
            try await pool.transaction { connection in
                try await connection.execute("SELECT pg_notify(\(channel + "_other"), 'elsewhere')")
                for payload in ["a", "b", "c,d"] { try await connection.execute("SELECT pg_notify(\(channel), \(payload))") }
            }
            // Sent at commit, in order; a rolled-back notification never is.
            try? await pool.transaction { connection in
                try await connection.execute("SELECT pg_notify(\(channel), 'rolled back')")
                throw CancellationError()
            }
            try await pool.execute("SELECT pg_notify(\(channel), 'e')")
            #expect(await payloads(4, from: &events) == ["a", "b", "c,d", "e"])
        }
    }

    @Test func aListenerWhoseConnectionIsEndedListensAgainAndSaysSo() async throws {
        try await withListener { channel, events, pool in
            var events = events
            #expect(await events.next() == .listening)
            let ended = try await pool.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = \("LISTEN " + channel)"
            ).decode(Bool.self)
            #expect(ended == [true])
            #expect(await events.next() == .listening)
            try await pool.execute("SELECT pg_notify(\(channel), 'again')")
            #expect(await payloads(1, from: &events) == ["again"])
        }
    }
}
