/// `hallmark.probe.request.v1`: input of the probe, the runtime's reference stage.
public struct ProbeRequest: MessageBody, Equatable {
    public static let schemaName = "hallmark.probe.request.v1"

    /// A number echoed in the result.
    public var n: Int
    /// Test hook: `always` makes processing fail (non-transiently).
    public var fail: String?

    public init(
        n: Int, fail: String? = nil
    ) {
        self.n = n
        self.fail = fail
    }

    enum CodingKeys: String, CodingKey {
        case n, fail
    }
}
