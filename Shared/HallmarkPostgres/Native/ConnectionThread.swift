import Foundation
import HallmarkCore

/// One connection's own thread, as a task executor: a transaction's body runs here, so its
/// statements call libpq directly instead of hopping to the connection's queue and back.
///
/// Each statement of a transaction hopped twice: onto the connection's queue (waking a
/// dispatch thread) and back onto the cooperative pool (waking another); a batch's
/// transaction runs 7–12 statements. In process, the thread cut the client's CPU for a
/// transaction of ten statements by 12–15% (docs/operations.md §2). A task that
/// prefers this executor (``PostgresConnection/transaction(isolation:_:)``) makes two hops a
/// transaction, in and out, however many statements it runs. Blocking libpq calls still never
/// run on the cooperative pool: this thread is not one of its threads.
///
/// The thread waits on a condition while it has no jobs and ends once ``shutDown()`` is called
/// and its queue is empty.
final class ConnectionThread: TaskExecutor, Sendable {
    private let jobs = JobQueue()

    init(name: String) {
        let thread = Thread { [self] in
            Self.threadLocal.value = self
            jobs.drive(on: asUnownedTaskExecutor())
            Self.threadLocal.value = nil
        }
        thread.name = name
        // A transaction's body is any Swift code (decoding, signing): glibc's default 8 MiB,
        // as the cooperative pool's threads have; untouched pages cost nothing.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { Self.threadLocal.value === self }

    func enqueue(_ job: consuming ExecutorJob) { jobs.enqueue(UnownedJob(job)) }

    /// Ends the thread once the jobs it has are run.
    func shutDown() { jobs.finish() }

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
