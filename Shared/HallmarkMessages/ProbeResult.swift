/// `hallmark.probe.result.v1`: what the probe answers.
public struct ProbeResult: MessageBody, Equatable {
    public static let schemaName = "hallmark.probe.result.v1"

    /// The request's `n`.
    public var n: Int
    /// The instance that processed it.
    public var instance: String
    /// `timed_out` when the request/reply reference pair gave up on its request.
    public var outcome: String?

    public init(n: Int, instance: String, outcome: String? = nil) {
        self.n = n
        self.instance = instance
        self.outcome = outcome
    }

    enum CodingKeys: String, CodingKey {
        case n, instance, outcome
    }
}
