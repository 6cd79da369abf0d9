/// A readers–writer gate over the shared server: ordinary tests enter shared, the restart tests
/// exclusive (and waiting writers go first, so they are not starved).
actor ServerGate {
    static let shared = ServerGate()

    private var readers = 0
    private var writer = false
    private var waitingReaders: [CheckedContinuation<Void, Never>] = []
    private var waitingWriters: [CheckedContinuation<Void, Never>] = []

    static func withShared<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        await shared.acquireShared()
        do {
            let value = try await body()
            await shared.releaseShared()
            return value
        } catch {
            await shared.releaseShared()
            throw error
        }
    }

    static func withExclusive<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        await shared.acquireExclusive()
        do {
            let value = try await body()
            await shared.releaseExclusive()
            return value
        } catch {
            await shared.releaseExclusive()
            throw error
        }
    }

    fileprivate func acquireShared() async {
        if writer || !waitingWriters.isEmpty {
            await withCheckedContinuation { waitingReaders.append($0) }  // granter counted us
        } else {
            readers += 1
        }
    }

    fileprivate func releaseShared() {
        readers -= 1
        if readers == 0, !waitingWriters.isEmpty {
            writer = true
            waitingWriters.removeFirst().resume()
        }
    }

    fileprivate func acquireExclusive() async {
        if writer || readers > 0 {
            await withCheckedContinuation { waitingWriters.append($0) }  // granter set `writer`
        } else {
            writer = true
        }
    }

    fileprivate func releaseExclusive() {
        if !waitingWriters.isEmpty {
            waitingWriters.removeFirst().resume()
            return
        }
        writer = false
        readers += waitingReaders.count
        let readers = waitingReaders
        waitingReaders = []
        readers.forEach { $0.resume() }
    }
}
