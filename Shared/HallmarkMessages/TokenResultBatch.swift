/// `hallmark.token.result.batch.v1`: the authority's answer to a ``TokenRequestBatch`` (DESIGN
/// §2), one ``TokenResult`` message per item, each with the item's id as its `request_id`.
public struct TokenResultBatch: MessageBody, Hashable {
    public static let schemaName = "hallmark.token.result.batch.v1"

    /// The verdicts, each a message of its own.
    public var items: [Message<TokenResult>]

    public init(items: [Message<TokenResult>]) { self.items = items }
}
