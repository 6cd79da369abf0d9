import HallmarkCrypto

/// Every FAIL reason the authority answers with: BM-TOKEN's, as the crypto module's validator
/// names them, plus `replayed_token`, which only the authority's replay ledger can tell. A reason
/// added to ``BirthmarkTokenReason`` is one here too, with the same name.
public enum ValidationReason: Sendable, Hashable {
    /// A reason of the token itself (BM-TOKEN).
    case token(BirthmarkTokenReason)
    /// A genuine token seen before under another message id.
    case replayedToken

    /// The request cannot be read (the authority's answer before the token is opened).
    public static let malformed = ValidationReason.token(.malformed)
}

extension ValidationReason: RawRepresentable, CaseIterable, Codable {
    /// The token's reasons, then `replayed_token`.
    public static var allCases: [ValidationReason] { BirthmarkTokenReason.allCases.map(Self.token) + [.replayedToken] }

    /// The name a token result carries.
    public var rawValue: String {
        switch self {
        case .token(let reason): reason.rawValue
        case .replayedToken: "replayed_token"
        }
    }

    public init?(rawValue: String) {
        if rawValue == "replayed_token" {
            self = .replayedToken
        } else if let reason = BirthmarkTokenReason(rawValue: rawValue) {
            self = .token(reason)
        } else {
            return nil
        }
    }
}
