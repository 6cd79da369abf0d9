/// The parameters of a MIME header value such as `form-data; name="a;b"; filename=x.jpg`
/// (RFC 2045 §5.1, RFC 2183, RFC 7578): `;`-separated `attribute=value` pairs after the
/// leading type, the attribute a token matched without regard to case, the value a token or a
/// quoted-string. A `;` or `=` inside a quoted-string is part of the value, and a quoted-pair
/// (`\` and any character) stands for that character. Lenient where RFCs leave room (spaces
/// around `;` and `=`), never splitting inside quotes; the first of a repeated attribute wins.
enum HeaderParameters {
    /// The value of parameter `attribute` (case-insensitive) in `header`; nil when absent.
    static func value(_ attribute: String, in header: String) -> String? {
        let wanted = attribute.lowercased()
        return parse(header).first { $0.attribute == wanted }?.value
    }

    /// Every parameter in order, attributes lower-cased, values unquoted.
    static func parse(_ header: String) -> [(attribute: String, value: String)] {
        let bytes = Array(header.utf8)
        let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 13 || b == 10 }
        func trimmed(_ s: ArraySlice<UInt8>) -> String {
            String(decoding: s.drop(while: isSpace).reversed().drop(while: isSpace).reversed(), as: UTF8.self)
        }
        var out: [(attribute: String, value: String)] = []
        // The type (`form-data`) is a token: it ends at the first `;`.
        guard var i = bytes.firstIndex(of: semicolon) else { return [] }
        i += 1
        while i < bytes.count {
            let start = i
            while i < bytes.count, bytes[i] != equals, bytes[i] != semicolon { i += 1 }
            guard i < bytes.count, bytes[i] == equals else {
                i += 1  // no `=`: not a parameter
                continue
            }
            let attribute = trimmed(bytes[start..<i]).lowercased()
            i += 1
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            var value: [UInt8] = []
            if i < bytes.count, bytes[i] == quote {
                i += 1
                while i < bytes.count, bytes[i] != quote {
                    if bytes[i] == backslash, i + 1 < bytes.count { i += 1 }
                    value.append(bytes[i])
                    i += 1
                }
                i += 1  // the closing quote (an unterminated string ends the header)
                // Anything between the closing quote and the next `;` is not part of the value.
                while i < bytes.count, bytes[i] != semicolon { i += 1 }
            } else {
                let valueStart = i
                while i < bytes.count, bytes[i] != semicolon { i += 1 }
                value = Array(trimmed(bytes[valueStart..<i]).utf8)
            }
            i += 1
            if !attribute.isEmpty, !out.contains(where: { $0.attribute == attribute }) {
                out.append((attribute, String(decoding: value, as: UTF8.self)))
            }
        }
        return out
    }
}
