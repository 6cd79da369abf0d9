import Foundation

/// An HTTP-like request read from a fuzz input: `Name: value` lines, an empty line, the body.
/// The fuzzer mutates headers and body as text rather than through JSON and base64, which
/// gets it to the SIGN-1 and ENC-1 parsers far sooner than whole Kafka messages would.
struct FuzzRequest: Sendable {
    var headers: [String: String]
    var body: Data

    init(headers: [String: String], body: Data) {
        self.headers = headers
        self.body = body
    }

    init(_ bytes: [UInt8]) {
        let end = bytes.indices.first { bytes[$0] == 0x0A && ($0 + 1 == bytes.count || bytes[$0 + 1] == 0x0A) }
        let head = end.map { bytes[..<$0] } ?? bytes[...]
        body = end.map { Data(bytes[min($0 + 2, bytes.count)...]) } ?? Data()
        headers = [:]
        for line in head.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            headers[name] = value
        }
    }

    /// The input that reads back as this request (for seeds).
    var bytes: [UInt8] {
        Array(headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined().utf8) + [0x0A] + Array(body)
    }
}
