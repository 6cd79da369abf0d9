import HallmarkCore
import HallmarkPostgres
import Logging

// How the leader learns that items wait: from its own process (``OrderedWriter/wake()``), from
// another replica (a `NOTIFY` on ``OrderedWriter/channel``), and at worst from its own idle
// looks, which grow sparse while nothing comes (an idle aggregator counted its waiting items 50
// times a second: most of its idle CPU).
extension OrderedWriter {
    /// The `NOTIFY` channel on which a replica that does not lead tells the leader that items
    /// were added: one per log name and schema.
    public var channel: String { Self.channel(schema: configuration.schema, name: configuration.name) }

    /// `hallmark_writer_<schema>_<name>`, lower case, anything but letters and digits as `_`,
    /// at most 63 bytes (an identifier's limit).
    static func channel(schema: String, name: String) -> String {
        let raw = "hallmark_writer_\(schema)_\(name)".lowercased().unicodeScalars
        let cleaned = raw.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
        return String(cleaned.prefix(63))
    }

    /// Runs `body` (the lead) while listening on ``channel``: a notification wakes the leader,
    /// and so does each (re)start of listening, since what was sent meanwhile was heard by
    /// nobody.
    func listening(_ body: () async throws -> Void) async throws {
        let listener = PostgresListener(configuration: pool.configuration, channel: channel, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [wakeups] in
                await listener.run(listening: { wakeups.signal() }, heard: { _ in wakeups.signal() })
            }
            defer { group.cancelAll() }
            try await body()
        }
    }

    /// While another replica leads, each ``wake()`` sends it a `NOTIFY`; wakes that come while
    /// one is being sent are told by the next. A failed one is left to the leader's idle looks.
    func tellLeaderWhenWoken() async {
        while !Task.isCancelled {
            await tellLeader.wait(timeout: .seconds(3600))
            guard !Task.isCancelled else { return }
            do {
                _ = try await pool.execute("SELECT pg_notify(\(channel), '')")
            } catch {
                logger.debug(
                    "could not tell the leader of new items", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            }
        }
    }
}

extension OrderedWriter.Configuration {
    /// How long an idle leader waits after `looks` looks in a row found nothing:
    /// ``idlePoll``, doubled at each further look, up to ``longestIdlePoll`` (the project's one
    /// backoff formula, ``RetryPolicy/delay(afterFailures:)``).
    func idleWait(afterQuietLooks looks: Int) -> Duration {
        guard idlePoll > .zero else { return idlePoll }
        return RetryPolicy(initialDelay: idlePoll, maxDelay: longestIdlePoll).delay(afterFailures: looks)
    }
}
