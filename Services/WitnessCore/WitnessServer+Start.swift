import Logging
import ServiceLifecycle

extension WitnessServer {
    /// Serves `witness` on a free loopback port, in a service group of its own that is already
    /// running, for a test or a benchmark; the caller ends it with
    /// `group.triggerGracefulShutdown()`. Throws when the server stops before it listens.
    package static func start(_ witness: Witness, logger: Logger) async throws -> (group: ServiceGroup, port: Int) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = application(witness, host: "127.0.0.1", port: 0, logger: logger) { continuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        Task {
            defer { continuation.finish() }
            try? await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw WitnessError("the witness server stopped before it listened") }
        return (group, port)
    }
}
