import HallmarkCore
import HallmarkCrypto

/// `hallmark.token.request.v1`: a camera token for the key-table authority (BM-TOKEN), in the
/// reference format (`camera_token`) or the mobile-app and packed formats
/// (`encrypted_nuc_token` + `table_references` + `key_indices`). It never carries an image
/// hash: its schema allows no other field.
public struct TokenRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.token.request.v1"

    /// The token's members: the request's whole body.
    public var tokenFields: TokenFields

    /// A request for `token`.
    public init(token: BirthmarkToken) {
        tokenFields = TokenFields(token)
    }

    /// The token it carries, when exactly one format is complete.
    public var token: BirthmarkToken? { tokenFields.token }

    /// The request read from its checked members (``TokenFields/init(fields:)``); nil when the
    /// caller must decode.
    public init?(fields: [String: JSONValue]) {
        guard let tokenFields = TokenFields(fields: fields) else { return nil }
        self.tokenFields = tokenFields
    }

    public init(from decoder: any Decoder) throws {
        tokenFields = try TokenFields(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try tokenFields.encode(to: encoder)
    }
}
