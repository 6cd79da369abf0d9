import HallmarkCrypto

/// Every FAIL reason the authority answers with: BM-TOKEN's six plus `replayed_token`.
public enum ValidationReason: String, Sendable, Hashable, CaseIterable, Codable {
    case malformed
    case unknownTable = "unknown_table"
    case authenticationFailed = "authentication_failed"
    case unknownDevice = "unknown_device"
    case tableNotAssigned = "table_not_assigned"
    case blacklisted
    case replayedToken = "replayed_token"

    /// The same reason from the crypto module's validator.
    public init(_ reason: BirthmarkTokenReason) {
        switch reason {
        case .malformed: self = .malformed
        case .unknownTable: self = .unknownTable
        case .authenticationFailed: self = .authenticationFailed
        case .unknownDevice: self = .unknownDevice
        case .tableNotAssigned: self = .tableNotAssigned
        case .blacklisted: self = .blacklisted
        }
    }
}
