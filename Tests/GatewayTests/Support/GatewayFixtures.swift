import Foundation
import GatewayCore
import HallmarkCrypto
import HallmarkSmileID
import Logging

/// Sample requests of the three ENC-1 kinds and a crypto setup without a broker.
enum GatewayFixtures {
    static let boundary = "----HallmarkBoundary7MA4YWxkTrZu0gW"
    static let multipartType = "multipart/form-data; boundary=\(boundary)"

    /// Two "images" (bytes that are not UTF-8, with CRs and LFs, and a near-delimiter) and
    /// the two metadata fields, plus a plain field.
    static func multipart(
        partnerParams: String = #"{"job_id":"job-1","user_id":"user-1"}"#,
        metadata: String? = #"[{"name":"sdk","value":"iOS"}]"#
    ) -> Data {
        var parts: [MultipartBody.Part] = [
            .init(
                rawHeaders: Array(
                    "Content-Disposition: form-data; name=\"selfie_image\"; filename=\"selfie.jpg\"\r\nContent-Type: image/jpeg"
                        .utf8),
                body: [0xff, 0xd8, 0xff, 0xe0] + Array("\r\n--\(boundary.dropLast())x\r\n".utf8)
                    + (0..<512).map { UInt8($0 % 251) }),
            .init(field: "partner_params", contentType: "application/json", body: Array(partnerParams.utf8)),
            .init(
                rawHeaders: Array(
                    "Content-Disposition: form-data; name=\"liveness_images\"; filename=\"l1.jpg\"\r\nContent-Type: image/jpeg"
                        .utf8),
                body: [0xff, 0xd8] + (0..<2048).map { UInt8(($0 * 7) % 256) }),
            .init(rawHeaders: Array("Content-Disposition: form-data; name=\"user_id\"".utf8), body: Array("user-1".utf8)),
        ]
        if let metadata {
            parts.insert(.init(field: "metadata", contentType: "application/json", body: Array(metadata.utf8)), at: 2)
        }
        var body = try! MultipartBody(parsing: Array("--\(boundary)--\r\n".utf8), boundary: boundary)
        body.parts = parts
        return Data(body.bytes)
    }

    /// A small stored ZIP (one entry), as bytes.
    static let zip: Data = {
        var entry = Data("PK\u{03}\u{04}".utf8)
        entry.append(contentsOf: [20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0])
        entry.append(contentsOf: Array("a{}".utf8))
        return entry + Data((0..<4096).map { UInt8($0 % 256) })
    }()

    /// A running worker pool and a deriver over it (stop the pool when done).
    static func deriver() -> (KeyDeriver, PBKDF2WorkerPool) {
        let pool = PBKDF2WorkerPool(workers: 2, batchSize: 2, service: "gateway", logger: Logger(label: "test"))
        pool.startDetached()
        return (KeyDeriver(pool: pool, cache: DerivedKeyCache(capacity: 64, ttl: 60)), pool)
    }

    static func secrets(_ versions: [String: String] = ["v1": "test-secret"], signing: String = "v1") throws -> SecretSet {
        try SecretSet(versions: versions.map { SecretVersion(version: $0.key, secret: $0.value) }, signingVersion: signing)
    }
}
