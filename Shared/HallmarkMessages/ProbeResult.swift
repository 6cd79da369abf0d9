/// `hallmark.probe.result.v1`: what the probe answers.
public struct ProbeResult: HallmarkMessage, Equatable {
    public static let schemaName = "hallmark.probe.result.v1"

    public var schema = ProbeResult.schemaName
    public var id: String
    public var producedAt: String
    /// The request's `correlation_id`, or its `id` when it had none.
    public var correlationID: String
    /// The request's `n`.
    public var n: Int
    /// The instance that processed it.
    public var instance: String
    /// `timed_out` when the request/reply reference pair gave up on its request.
    public var outcome: String?

    public init(id: String, producedAt: String, correlationID: String, n: Int, instance: String, outcome: String? = nil) {
        self.id = id
        self.producedAt = producedAt
        self.correlationID = correlationID
        self.n = n
        self.instance = instance
        self.outcome = outcome
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, n, instance, outcome
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
    }
}
