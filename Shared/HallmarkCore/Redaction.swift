/// Making untrusted text fit for a log line or a rejection's detail.
public enum Redaction {
    /// A name from input (a schema, a member name) as it may be shown: itself when it is
    /// short printable ASCII, else only its size.
    public static func name(_ text: String, limit: Int = 64) -> String {
        let printable = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return printable && text.utf8.count <= limit ? text : "a name of \(text.utf8.count) bytes"
    }

    /// Whether `text` is 1 to `limit` printable ASCII characters, spaces excluded.
    public static func isPrintableASCII(_ text: String, limit: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= limit && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
