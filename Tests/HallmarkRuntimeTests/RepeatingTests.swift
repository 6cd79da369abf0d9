import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import HallmarkRuntime

/// `Repeating.run`, the loop of `TableStatistics` and `InboxSweeper`: a round at once, then one
/// every interval, a failed round logged and followed by the next, and graceful shutdown ending
/// the wait at once however long it is.
@Suite(.timeLimit(.minutes(1)))
struct RepeatingTests {
    /// Runs rounds every `interval`, telling each round's number to `rounds`; the second throws.
    struct Rounds: Service {
        let interval: Duration
        let rounds: AsyncStream<Int>.Continuation
        let count = Counter()

        final class Counter: Sendable {
            let value = Mutex(0)
            func next() -> Int {
                value.withLock { n in
                    n += 1
                    return n
                }
            }
        }

        struct Failure: Error {}

        func run() async throws {
            await Repeating.run(every: interval, logger: Logger(label: "repeating-tests"), failure: "round failed") {
                let n = count.next()
                rounds.yield(n)
                if n == 2 { throw Failure() }
            }
        }
    }

    static func group(_ service: Rounds) -> ServiceGroup {
        var logger = Logger(label: "repeating-tests")
        logger.logLevel = .critical
        return ServiceGroup(services: [service], logger: logger)
    }

    @Test func roundsGoOnPastAFailureUntilShutdown() async throws {
        let (rounds, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = Self.group(Rounds(interval: .milliseconds(1), rounds: continuation))
        let running = Task { try await group.run() }
        var seen: [Int] = []
        for await n in rounds {
            seen.append(n)
            if n == 4 { break }
        }
        #expect(seen == [1, 2, 3, 4])
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test func shutdownEndsAnHoursWait() async throws {
        let (rounds, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = Self.group(Rounds(interval: .seconds(3600), rounds: continuation))
        let running = Task { try await group.run() }
        var iterator = rounds.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        await group.triggerGracefulShutdown()
        // Returns within the suite's minute only if the hour's wait was cut short.
        try await running.value
    }
}
