/// `hallmark.bench.v1`: what `hallmark bench kafka` sends through an echo stage.
public struct BenchMessage: MessageBody, Equatable {
    public static let schemaName = "hallmark.bench.v1"

    /// A sequence number (-1 for the warm-up message).
    public var n: Int
    /// The sender's monotonic clock in nanoseconds; 0 when not timed.
    public var sentNs: UInt64
    /// `x` characters up to the chosen message size.
    public var pad: String

    public init(n: Int, sentNs: UInt64, pad: String) {
        self.n = n
        self.sentNs = sentNs
        self.pad = pad
    }

    enum CodingKeys: String, CodingKey {
        case n, pad
        case sentNs = "sent_ns"
    }
}
