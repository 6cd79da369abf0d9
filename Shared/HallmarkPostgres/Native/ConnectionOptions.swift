import libpq

/// The options of a connection string as libpq parses them; used to validate and redact.
struct ConnectionOptions: Sendable {
    private(set) var pairs: [(key: String, value: String)] = []
    /// The keys libpq marks as secret (display character `*`), plus the ones known to be.
    private(set) var secretKeys: Set<String> = Self.knownSecretKeys

    /// Secret whatever this libpq says: `password` (a URL's `user:password@` lands here too)
    /// and `sslpassword`, the passphrase of the client key.
    static let knownSecretKeys: Set<String> = ["password", "sslpassword"]

    subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    /// `key=value` pairs with every secret masked as `***`, in libpq's option order.
    var redacted: String {
        pairs.map { secretKeys.contains($0.key) ? "\($0.key)=***" : "\($0.key)=\($0.value)" }
            .joined(separator: " ")
    }

    static func parse(_ connectionString: String) throws(PostgresError) -> ConnectionOptions {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            // libpq's message may quote the string (and so a password): report a generic one.
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(code: .invalidConfiguration, message: "malformed PostgreSQL connection string")
        }
        defer { PQconninfoFree(options) }
        var result = ConnectionOptions()
        var option = options
        while let keyword = option.pointee.keyword {
            let key = String(cString: keyword)
            if let display = option.pointee.dispchar, display.pointee == CChar(UInt8(ascii: "*")) {
                result.secretKeys.insert(key)
            }
            if let value = option.pointee.val {
                result.pairs.append((key, String(cString: value)))
            }
            option += 1
        }
        return result
    }
}
