/// `hallmark.probe.request.v1`: input of the probe, the runtime's reference stage.
public struct ProbeRequest: HallmarkMessage, Equatable {
    public static let schemaName = "hallmark.probe.request.v1"

    public var schema = ProbeRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    /// A number echoed in the result.
    public var n: Int
    /// Test hook: `always` makes processing fail (non-transiently).
    public var fail: String?

    public init(
        id: String, producedAt: String, n: Int, fail: String? = nil, correlationID: String? = nil,
        replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.n = n
        self.fail = fail
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, n, fail
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
    }
}
