import Foundation

/// Runs a blocking C call on a thread of its own, never on Swift's cooperative pool.
///
/// For rare calls (flush, synchronous commit, close, admin requests); hot paths have
/// long-lived threads instead.
enum BlockingCall {
    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.name = name
            thread.start()
        }
    }
}
