/// Case-insensitive reads and edits of a request's headers.
public enum HeaderMap {
    public static let mac = "SmileID-Request-Mac"
    public static let timestamp = "SmileID-Request-Timestamp"
    public static let partner = "SmileID-Partner-ID"

    /// Names lowercased; nil when two names collide after lowercasing.
    public static func lowercased(_ headers: [String: String]) -> [String: String]? {
        var out: [String: String] = [:]
        for (name, value) in headers {
            guard out.updateValue(value, forKey: name.lowercased()) == nil else { return nil }
        }
        return out
    }

    /// The value of `name`, whatever its case.
    public static func value(_ name: String, in headers: [String: String]) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.key.lowercased() == lower }?.value
    }

    /// Sets `name`, replacing any spelling of it.
    public static func set(_ name: String, _ value: String, in headers: inout [String: String]) {
        remove(name, from: &headers)
        headers[name] = value
    }

    /// Removes `name`, whatever its case.
    public static func remove(_ name: String, from headers: inout [String: String]) {
        let lower = name.lowercased()
        for key in headers.keys where key.lowercased() == lower { headers[key] = nil }
    }

    /// Sets `Content-Length` to `count` when the request had one: after its body changed, the
    /// sent length would be wrong. A request without one keeps having none.
    public static func correctLength(_ count: Int, in headers: inout [String: String]) {
        if value("Content-Length", in: headers) != nil { set("Content-Length", "\(count)", in: &headers) }
    }
}
