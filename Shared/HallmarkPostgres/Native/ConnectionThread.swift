import Foundation

/// One connection's own thread, as a task executor: a transaction's body runs here, so its
/// statements call libpq directly instead of hopping to the connection's queue and back.
///
/// Each statement of a transaction hopped twice: onto the connection's queue (waking a
/// dispatch thread) and back onto the cooperative pool (waking another). At a steady stream,
/// with batches of a few messages, those wakes were most of a service's CPU. A task that
/// prefers this executor (``PostgresConnection/transaction(isolation:_:)``) makes two hops a
/// transaction, in and out, however many statements it runs. Blocking libpq calls still never
/// run on the cooperative pool: this thread is not one of its threads.
///
/// The thread waits on a condition while it has no jobs and ends once ``shutDown()`` is called
/// and its queue is empty.
final class ConnectionThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var ending = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        // A transaction's body is any Swift code (decoding, signing): glibc's default 8 MiB,
        // as the cooperative pool's threads have; untouched pages cost nothing.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { Self.threadLocal.value === self }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs it has are run.
    func shutDown() {
        condition.lock()
        ending = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        Self.threadLocal.value = self
        let executor = asUnownedTaskExecutor()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !ending { condition.wait() }
            if jobs.isEmpty && ending {
                condition.unlock()
                break
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
        Self.threadLocal.value = nil
    }

    /// This thread's executor, if the current thread is one.
    private static let threadLocal = ThreadLocal()
}

/// A per-thread reference to the thread's ``ConnectionThread``.
private final class ThreadLocal: @unchecked Sendable {
    private let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    var value: ConnectionThread? {
        get { pthread_getspecific(key).map { Unmanaged<ConnectionThread>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }
}
