/// A Swift value that can be sent as a bind parameter.
///
/// Conform your own types by mapping them onto one of the built-in encodings.
public protocol PostgresEncodable: Sendable {
    /// The parameter type sent to the server, also for NULL (`Optional.none`).
    static var postgresDataType: PostgresDataType { get }
    /// The value in text or binary wire format.
    var postgresValue: PostgresBind.Value { get }
}

extension PostgresEncodable {
    var postgresBind: PostgresBind { PostgresBind(type: Self.postgresDataType, value: postgresValue) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    public var postgresValue: PostgresBind.Value { self?.postgresValue ?? .null }
}
