import libpq

/// The options of a connection string as libpq parses them; used to validate and redact.
struct ConnectionOptions: Sendable {
    private(set) var pairs: [(key: String, value: String)] = []

    subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    /// `key=value` pairs with the password masked, in libpq's option order.
    var redacted: String {
        pairs.map { $0.key == "password" ? "password=***" : "\($0.key)=\($0.value)" }
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
            if let value = option.pointee.val {
                result.pairs.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return result
    }
}
