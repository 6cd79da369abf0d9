import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import SignerCore
import ZIPFoundation

/// Requests for the tests, signed with the crypto module (the reference implementation).
enum Fixtures {
    static let vectorTimestamp = "2025-01-01T00:00:00.000Z"
    static let vectorHeaders = [
        "Content-Type": "application/json", "SmileID-Partner-ID": "002", "SmileID-Source-SDK": "iOS",
        "SmileID-Source-SDK-Version": "11.0.0", "SmileID-Request-Timestamp": vectorTimestamp,
    ]
    static let vectorABody = Data(#"{"job_id":"job-1","user_id":"user-1"}"#.utf8)
    static let vectorAMAC = "NfIMuN27o4N21wG5w1/zpFWxD6IKLAKVcDKdj+Nc+3I="
    static let vectorBMAC = "bFCfQxhjFvDLCq+opLmD9TfK6IQR3Kwwwy2qWJYMldI="
    static let vectorDMAC = "7SkcJKyTMJ8YPk0myAFnb4ZqRCj2S5azfXqzinBVRDc="

    /// Headers of a request from `partner`, signed with `secret` at `timestamp`.
    static func signedHeaders(
        secret: String, timestamp: String = Timestamp.now().text, partner: String = "partner-1",
        body: Data, extra: [String: String] = [:]
    ) throws -> [String: String] {
        var headers = [
            "Content-Type": "application/json", "SmileID-Partner-ID": partner,
            "SmileID-Source-SDK": "iOS", "SmileID-Request-Timestamp": timestamp,
        ]
        headers.merge(extra) { _, new in new }
        headers["SmileID-Request-Mac"] = try SmileIDSignature.sign(
            secret: secret, timestamp: timestamp,
            headers: headers, payload: body)
        return headers
    }

    static func verify(_ headers: [String: String], body: Data, id: MessageID = .random()) -> Message<VerifyRequest> {
        Message(
            VerifyRequest(method: "POST", path: "/v1/submit_job", headers: headers, bodyB64: body.base64EncodedString()),
            id: id)
    }

    /// The SIGN-FILES MAC of vector D's files under `secret` at `timestamp`.
    static func zipMAC(secret: String, timestamp: String) throws -> String {
        try SmileIDFileSignature.sign(
            secret: secret, timestamp: timestamp,
            files: [
                .init(name: "info.json", contents: Data(#"{"a":1}"#.utf8)),
                .init(name: "si_liveness_1.jpg", contents: Data("LIV".utf8)),
                .init(name: "si_selfie_1.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("JPEGDATA".utf8)),
            ])
    }

    /// Vector D's zip: `info.json`, `si_liveness_1.jpg`, `si_selfie_1.jpg` and `security_info.json`
    /// (its keys in the order given, as platforms differ).
    static func vectorDZip(infoJSON: String) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        let files: [(String, Data)] = [
            ("security_info.json", Data(infoJSON.utf8)),
            ("si_selfie_1.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("JPEGDATA".utf8)),
            ("info.json", Data(#"{"a":1}"#.utf8)), ("si_liveness_1.jpg", Data("LIV".utf8)),
        ]
        for (name, contents) in files {
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(contents.count),
                compressionMethod: .deflate
            ) { position, size in
                contents.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return archive.data!
    }
}
