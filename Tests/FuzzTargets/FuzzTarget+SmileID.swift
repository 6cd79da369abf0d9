import Foundation
import GatewayCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID
import HallmarkZip
import HallmarkTestSupport
import SignerCore

extension FuzzTarget {
    /// SIGN-1 and SIGN-FILES through the signer's real verifier and signer.
    static let sign1 = FuzzTarget(
        name: "sign1",
        summary: "SIGN-1/SIGN-FILES verify (headers, canonical JSON, zip, security_info.json); what the signer signs verifies",
        run: SmileIDTargets.sign1, seeds: SmileIDTargets.sign1Seeds,
        dictionary: SmileIDTargets.headerTokens + SmileIDTargets.zipTokens)

    /// The zip reader alone, on raw archive bytes.
    static let zip = FuzzTarget(
        name: "zip", summary: "ZipArchive and ZipUpload on raw bytes; security_info.json when there is one",
        run: SmileIDTargets.zip, seeds: { ZipFixtures.bytes }, dictionary: SmileIDTargets.zipTokens)

    /// ENC-1 through the gateway's real encryptor and decryptor.
    static let enc1 = FuzzTarget(
        name: "enc1", summary: "ENC-1 decrypt (headers, envelope, multipart) and encrypt; what the gateway encrypts decrypts",
        run: SmileIDTargets.enc1, seeds: SmileIDTargets.enc1Seeds,
        dictionary: SmileIDTargets.headerTokens + SmileIDTargets.multipartTokens)
}

enum SmileIDTargets {
    static func sign1(_ bytes: [UInt8]) throws(FuzzFinding) {
        let smile = FuzzSmileID.shared
        let request = FuzzRequest(bytes)
        _ = try? smile.verify(request)
        guard let signed = try? smile.sign(request) else { return }
        // A request the signer signs verifies, unless its own timestamp is out of the window
        // or it lacks what verification needs besides the MAC (a partner id, say).
        if case .rejected(.badMAC)? = try? smile.verify(signed), !ZipUpload.looksLikeZip(request.body) {
            throw FuzzFinding("a request the signer signed fails verification with bad_mac")
        }
    }

    static func zip(_ bytes: [UInt8]) throws(FuzzFinding) {
        let limits = ZipLimits(maxEntries: 64, maxInflatedBytes: 1 << 20, maxNameBytes: 255)
        guard let upload = try? ZipUpload.read(Data(bytes), limits: limits) else { return }
        try require(upload.securityInfo.count <= ZipUpload.maxSecurityInfoBytes, "security_info.json read past its limit")
        _ = try? SmileIDSecurityInfo.parse(upload.securityInfo)
    }

    static func enc1(_ bytes: [UInt8]) throws(FuzzFinding) {
        let smile = FuzzSmileID.shared
        let request = FuzzRequest(bytes)
        _ = try? smile.decrypt(request)
        if let boundary = MultipartBody.boundary(contentType: request.headers["Content-Type"] ?? ""),
            let parsed = try? MultipartBody(parsing: Array(request.body), boundary: boundary)
        {
            let again = try? MultipartBody(parsing: parsed.bytes, boundary: boundary)
            try require(again == parsed, "a multipart body rebuilt from its parts reads back differently")
        }
        guard let output = try? smile.encrypt(request), case .encrypted(let type) = output.decision else { return }
        let opened: PayloadDecryptor.Outcome
        do {
            opened = try smile.decrypt(FuzzRequest(headers: output.headers, body: output.body))
        } catch {
            throw FuzzFinding("decrypting what the gateway encrypted threw")
        }
        // The encryptor keeps a caller's own `SmileID-Request-Timestamp` (as SIGN-1 does), so
        // an old one makes an envelope the decryptor's window refuses: that alone is no finding.
        if case .rejected(.staleTimestamp) = opened { return }
        guard case .decrypted(_, let plaintext) = opened else {
            throw FuzzFinding("what the gateway encrypted (\(type)) does not decrypt: \(opened)")
        }
        try require(type == .multipart || plaintext == request.body, "a decrypted \(type) body differs from the original")
    }

    // MARK: Seeds

    static func sign1Seeds() throws -> [[UInt8]] {
        let smile = FuzzSmileID.shared
        let headers = ["SmileID-Partner-ID": "085", "Content-Type": "application/json", "SmileID-Request-ID": "req-1"]
        let bodies = [
            Data(#"{"job_id":"job-1","user_id":"user-1","partner_params":{"job_type":5}}"#.utf8), Data("[]".utf8), Data(),
        ]
        var seeds = try bodies.map { try smile.sign(FuzzRequest(headers: headers, body: $0)).bytes }
        seeds += ZipFixtures.bytes.map { FuzzRequest(headers: ["SmileID-Partner-ID": "085"], body: Data($0)).bytes }
        return seeds
    }

    static func enc1Seeds() throws -> [[UInt8]] {
        let smile = FuzzSmileID.shared
        let json = FuzzRequest(
            headers: ["Content-Type": "application/json"], body: Data(#"{"partner_params":{"user_id":"u-1"}}"#.utf8))
        let boundary = "----hallmark-fuzz"
        let parts: [(String, String, String)] = [
            ("partner_params", "application/json", #"{"job_id":"j"}"#),
            ("metadata", "application/json", "[]"), ("selfie", "image/jpeg", "JFIF"),
        ]
        let multipart =
            parts.map { name, type, body in
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n\(body)\r\n"
            }.joined() + "--\(boundary)--\r\n"
        let form = FuzzRequest(headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: Data(multipart.utf8))
        let zip = FuzzRequest(headers: ["Content-Type": "application/zip"], body: Data(ZipFixtures.bytes[4]))
        var seeds = [json.bytes, form.bytes, zip.bytes]
        for plain in [json, form, zip] {
            let output = try smile.encrypt(plain)
            seeds.append(FuzzRequest(headers: output.headers, body: output.body).bytes)
        }
        return seeds
    }

    // MARK: Dictionaries

    static let headerTokens = [
        "SmileID-Partner-ID", "SmileID-Request-Timestamp", "SmileID-Request-MAC", "SmileID-Request-ID", "Content-Type",
        "SmileID-Encryption-Version", "SmileID-Content-Encrypted", "SmileID-Skip-Encryption", "Content-Length",
        "2025-01-01T00:00:00.000Z", "2025-01-01T00:04:59Z", "application/json", "application/zip", "true", "1.0",
        "AES-256-GCM", "\"version\"", "\"algorithm\"", "\"iv\"", "\"auth_tag\"", "\"encrypted_data\"", "\"timestamp\"",
    ]

    static let zipTokens = [
        "PK\u{03}\u{04}", "PK\u{01}\u{02}", "PK\u{05}\u{06}", "PK\u{06}\u{06}", "PK\u{06}\u{07}", "PK\u{07}\u{08}",
        "security_info.json", "\"mac\"", "\"timestamp\"", "_liveness_", "_selfie_", "info.json", "\u{FF}\u{FF}\u{FF}\u{FF}",
    ]

    static let multipartTokens = [
        "multipart/form-data; boundary=", "--", "\r\n", "\r\n\r\n", "Content-Disposition: form-data; name=",
        "\"partner_params\"", "\"metadata\"", "\"partner_params_encrypted\"", "\"metadata_encrypted\"", "filename=",
        "Content-Transfer-Encoding: base64",
    ]
}
