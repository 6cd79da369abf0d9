import HallmarkCore
import Logging

/// Listens on one `NOTIFY` channel with a connection of its own (a listening session is held
/// for good, so never one of the pool's) and hands each batch of payloads it hears to the
/// caller. A lost connection is opened again with backoff. What is sent while it does not
/// listen is lost, so each time it listens anew it says so (`listening`): a caller then reads
/// again what it waits for.
public struct PostgresListener: Sendable {
    /// The server to listen on.
    public let configuration: PostgresConfiguration
    /// The channel (an identifier: lower case letters, digits and `_`).
    public let channel: String
    let logger: Logger
    /// The pauses between attempts to listen again (their count starts over once it listens).
    let retry: RetryPolicy

    public init(
        configuration: PostgresConfiguration, channel: String, logger: Logger,
        retry: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5))
    ) {
        precondition(PostgresQuery.isValidIdentifier(channel) && channel == channel.lowercased(), "a lower-case identifier")
        self.configuration = configuration
        self.channel = channel
        self.logger = logger
        self.retry = retry
    }

    /// Listens until the calling task is cancelled: `listening()` each time the channel is
    /// (again) listened to, `heard(payloads)` for what arrived together, in order.
    public func run(listening: @Sendable () async -> Void, heard: @Sendable ([String]) async -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
                try await connection.execute("LISTEN \(unescaped: channel)")
                failures = 0
                await listening()
                // A short wait: it is also how long a cancellation may take to be seen.
                while !Task.isCancelled {
                    let payloads = try await connection.notifications(waitingUpTo: .milliseconds(250))
                        .filter { $0.channel == channel }.map(\.payload)
                    if !payloads.isEmpty { await heard(payloads) }
                }
            } catch {
                guard !Task.isCancelled else { return }
                failures += 1
                let pause = retry.delay(afterFailures: failures)
                logger.warning(
                    "not listening to PostgreSQL notifications; trying again",
                    metadata: ["postgres.channel": "\(channel)", "error": "\(error)", "retry_in": "\(pause)"])
                try? await Task.sleep(for: pause)
            }
        }
    }
}
