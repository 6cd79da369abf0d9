import Foundation

/// Hands out index ranges to the signing threads and keeps their MACs.
final class NextIndex: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private(set) var macs: [String]

    init(count: Int) {
        self.count = count
        macs = Array(repeating: "", count: count)
    }

    func take(_ n: Int) -> Range<Int>? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        let range = next..<min(count, next + n)
        next = range.upperBound
        return range
    }

    func store(_ values: [String], at range: Range<Int>) {
        lock.lock()
        macs.replaceSubrange(range, with: values)
        lock.unlock()
    }
}
