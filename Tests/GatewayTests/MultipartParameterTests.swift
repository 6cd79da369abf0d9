import Foundation
@testable import GatewayCore
import HallmarkTestSupport
import Testing

/// Issue 30 §4a: a part's `Content-Disposition` parameters are read per RFC 2045/2183/7578
/// (quoted-strings with quoted-pairs, case-insensitive attributes, token values), checked
/// against an independent parser: Python's `email` package (`policy.default`), run locally.
@Suite("Multipart header parameters", .timeLimit(.minutes(2)))
struct MultipartParameterTests {
    @Test func aSemicolonInsideQuotesDoesNotEndAParameter() throws {
        let header = #"form-data; filename="a;name=metadata;.jpg"; name="selfie""#
        #expect(HeaderParameters.value("name", in: header) == "selfie")
        #expect(HeaderParameters.value("filename", in: header) == "a;name=metadata;.jpg")
        let b = GatewayFixtures.boundary
        let body = "--\(b)\r\nContent-Disposition: \(header)\r\nContent-Type: image/jpeg\r\n\r\nJPEG\r\n--\(b)--"
        let parts = try MultipartBody(parsing: Array(body.utf8), boundary: b)
        #expect(parts.parts.map(\.name) == ["selfie"])
        #expect(try parts.uniquePart(named: "metadata") == nil)
        #expect(HeaderParameters.value("NAME", in: #"form-data; Name="a\"b\\c\d""#) == #"a"b\cd"#)
    }

    static func header(_ g: inout SplitMix64) -> String {
        let tokenChars = Array("abcXYZ019!#$&+-.^_`{|}~")
        let quotedChars = Array("ab ;=;\"\\name=metadata;\t.jpgZ!#")
        let attributes = ["name", "filename", "size", "x-name", "filename2", "names"].shuffled(using: &g)
        var params: [String] = []
        for attribute in attributes.prefix(Int.random(in: 1...4, using: &g)) {
            let cased = String(attribute.map { Bool.random(using: &g) ? Character($0.uppercased()) : $0 })
            var value: String
            if Bool.random(using: &g) {
                value = String((0..<Int.random(in: 1...8, using: &g)).map { _ in tokenChars.randomElement(using: &g)! })
            } else {
                value = "\""
                for _ in 0..<Int.random(in: 0...12, using: &g) {
                    let c = quotedChars.randomElement(using: &g)!
                    // A quote or backslash is always escaped; now and then an ordinary one too.
                    if c == "\"" || c == "\\" || Int.random(in: 0..<8, using: &g) == 0 { value.append("\\") }
                    value.append(c)
                }
                value += "\""
            }
            let equals = ["=", "=", "=", " = ", "= "].randomElement(using: &g)!
            params.append(cased + equals + value)
        }
        let separators = [";", "; ", " ; ", ";  ", ";\t"]
        return params.reduce("form-data") { $0 + separators.randomElement(using: &g)! + $1 }
    }

    /// Python's reading of each header's `name` and `filename` (NSNull when absent).
    static func python(_ headers: [String]) throws -> [[String?]] {
        let script = """
            import json, sys
            from email import policy
            out = []
            for v in json.load(sys.stdin):
                p = policy.default.header_factory('Content-Disposition', v).params
                out.append([p.get('name'), p.get('filename')])
            json.dump(out, sys.stdout)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let payload = try JSONSerialization.data(withJSONObject: headers)
        // Written from another thread: Python's answer could fill the pipe before it reads all.
        let writer = Thread {
            input.fileHandleForWriting.write(payload)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let decoded = try JSONSerialization.jsonObject(with: data) as? [[Any]] ?? []
        return decoded.map { $0.map { $0 as? String } }
    }

    @Test func nameAndFilenameAgreeWithPythonsEmailParser() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var g = SplitMix64(seed: seed)
        let headers = (0..<3000).map { _ in Self.header(&g) }
        let expected = try Self.python(headers)
        try #require(expected.count == headers.count)
        var mismatches = 0
        for (header, want) in zip(headers, expected) {
            let got = [HeaderParameters.value("name", in: header), HeaderParameters.value("filename", in: header)]
            if got != want {
                mismatches += 1
                if mismatches <= 5 { Issue.record("seed \(seed): \(header) → \(got), Python: \(want)") }
            }
        }
        #expect(mismatches == 0, "seed \(seed): \(mismatches) of \(headers.count) differ")
    }
}
