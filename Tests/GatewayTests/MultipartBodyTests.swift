import Foundation
import GatewayCore
import Testing

/// The multipart splitter: every byte kept on a round trip, strict about structure, linear on
/// hostile input.
@Suite("Multipart bodies", .timeLimit(.minutes(1)))
struct MultipartBodyTests {
    @Test func anUnchangedBodyRebuildsByteForByte() throws {
        let b = GatewayFixtures.boundary
        let samples: [String] = [
            "--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(b)--",
            "--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(b)--\r\n",
            "preamble\r\n--\(b)\r\nX: y\r\n\r\n\r\n--\(b)\r\n\r\nno headers\r\n--\(b)--epilogue",
            "\r\n--\(b)\r\nX: y\r\n\r\nbody\r\n--\(b)--",
            "--\(b)--",
        ]
        for sample in samples {
            let body = try MultipartBody(parsing: Array(sample.utf8), boundary: b)
            #expect(String(decoding: body.bytes, as: UTF8.self) == sample)
        }
        let fixture = GatewayFixtures.multipart()
        let parsed = try MultipartBody(parsing: Array(fixture), boundary: b)
        #expect(parsed.parts.map(\.name) == ["selfie_image", "partner_params", "metadata", "liveness_images", "user_id"])
        #expect(Data(parsed.bytes) == fixture)
        #expect(MultipartBody.boundary(contentType: GatewayFixtures.multipartType) == b)
        #expect(MultipartBody.boundary(contentType: "multipart/form-data; boundary=\"quoted b\"") == "quoted b")
        #expect(MultipartBody.boundary(contentType: "application/json") == nil)
    }

    @Test(arguments: [
        "no delimiter at all",
        "--B\r\nX: y\r\n\r\nbody without an end",
        "--B\r\nX: y\r\nbody\r\n--B--",
        "--Bjunk\r\nX: y\r\n\r\nb\r\n--B--",
        "--B",
        // The header's CRLF and the delimiter's CRLF are no blank line (this one trapped).
        "--B\r\nX: y\r\n\r\n--B--", "--B\r\nX: y\r\n\r\nbody\r\n--B\r\nZ: w\r\n\r\n--B--",
    ])
    func malformedBodiesAreRefused(sample: String) {
        #expect(throws: MultipartError.self) { try MultipartBody(parsing: Array(sample.utf8), boundary: "B") }
    }

    @Test func boundariesAreChecked() {
        #expect(throws: MultipartError.self) { try MultipartBody(parsing: [], boundary: "") }
        #expect(throws: MultipartError.self) { try MultipartBody(parsing: [], boundary: String(repeating: "a", count: 71)) }
        #expect(throws: MultipartError.self) { try MultipartBody(parsing: [], boundary: "bad\r\nboundary") }
        #expect(!MultipartBody.isValid(boundary: "ends in space "))
    }

    @Test func tooManyPartsAreRefused() {
        let part = "--B\r\nX: y\r\n\r\nz\r\n"
        let body = String(repeating: part, count: MultipartBody.maximumParts + 1) + "--B--"
        #expect(throws: MultipartError.self) { try MultipartBody(parsing: Array(body.utf8), boundary: "B") }
    }

    @Test func nearDelimitersAreSearchedInLinearTime() throws {
        // 4 MB of CRLF-dash runs that almost make the delimiter.
        let boundary = String(repeating: "q", count: 70)
        let near = Array("\r\n--\(boundary.dropLast())".utf8)
        var body = Array("--\(boundary)\r\nX: y\r\n\r\n".utf8)
        while body.count < 4 << 20 { body += near }
        body += Array("\r\n--\(boundary)--".utf8)
        // A quadratic search would take hours here; the suite's time limit is the guard.
        #expect(try MultipartBody(parsing: body, boundary: boundary).parts.count == 1)
    }
}
