/// `hallmark.token.request.batch.v1`: a batch carrier of token requests (DESIGN §2), as the
/// aggregator sends one intake batch's requests to the authority in one Kafka message. Each
/// item is a whole ``TokenRequest`` message with its own id, answered on its own in the
/// ``TokenResultBatch``.
public struct TokenRequestBatch: MessageBody, Hashable {
    public static let schemaName = "hallmark.token.request.batch.v1"

    /// The requests, each a message of its own.
    public var items: [Message<TokenRequest>]

    public init(items: [Message<TokenRequest>]) { self.items = items }
}
