import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// ENC-1 encryption of one request (DESIGN §1): the policy decides whether, `Content-Type`
/// decides what — the whole body for JSON and ZIP, the `partner_params` and `metadata` fields
/// of a multipart body — and the signing secret version encrypts it. The PBKDF2 derivations
/// run on the worker pool (``KeyDeriver``), never on the cooperative pool.
package struct PayloadEncryptor: Sendable {
    /// An encrypted (or passed-through) request.
    package struct Output: Sendable, Equatable {
        package var decision: EncryptResult.Decision
        package var headers: [String: String]
        package var body: Data
    }

    let deriver: KeyDeriver
    package let policy: EncryptionPolicy

    package init(deriver: KeyDeriver, policy: EncryptionPolicy) {
        self.deriver = deriver
        self.policy = policy
    }

    /// The request id used when the headers carry no `SmileID-Request-ID`: the message's own
    /// id, so a redelivered request is encrypted under the same id.
    /// - Parameters:
    ///   - timestamp: used when the headers carry no `SmileID-Request-Timestamp`; absent → `now`.
    ///   - iv: fixed IVs (tests of the DESIGN vector only); random otherwise.
    package func encrypt(
        path: String?, headers: [String: String], body: Data, requestID fallbackID: String,
        timestamp: String?, secrets: SecretSet, now: Date, iv: Data? = nil
    ) async throws -> Output {
        guard HeaderMap.lowercased(headers) != nil else {
            throw StageRejection(.schemaViolation, "header names collide after lowercasing")
        }
        if let reason = policy.passthrough(path: path, headers: headers) {
            return Output(decision: .passedThrough(reason), headers: headers, body: body)
        }
        let contentType = HeaderMap.value("Content-Type", in: headers) ?? ""
        guard let type = Self.requestType(contentType: contentType) else {
            return Output(decision: .passedThrough(.unsupportedContentType), headers: headers, body: body)
        }
        let stamp = HeaderMap.value(HeaderMap.timestamp, in: headers) ?? timestamp ?? Timestamp.format(now)
        guard Timestamp.parse(stamp) != nil else {
            throw StageRejection(.schemaViolation, "the timestamp is not ISO 8601")
        }
        let requestID = HeaderMap.value(GatewayHeaders.requestID, in: headers) ?? fallbackID
        guard !requestID.isEmpty else { throw StageRejection(.schemaViolation, "SmileID-Request-ID is empty") }

        var out = headers
        let encrypted: Data
        switch type {
        case .json, .zip:
            let keys = try await keys(timestamp: stamp, requestID: requestID, secrets: secrets)
            encrypted = try SmileIDEncryption.encrypt(body, keys: keys, timestamp: stamp, iv: iv).jsonData()
            HeaderMap.set("Content-Type", "application/octet-stream", in: &out)
        case .multipart:
            guard policy.multipartMetadata else {
                return Output(decision: .passedThrough(.multipartMetadataDisabled), headers: headers, body: body)
            }
            var multipart = try Self.parse(body, contentType: contentType)
            let targets = try Self.fieldParts(multipart)
            guard !targets.isEmpty else {
                return Output(decision: .passedThrough(.noFieldsToEncrypt), headers: headers, body: body)
            }
            // Both fields' derivations go to the pool together, so a batching worker pairs them.
            let keys = try await withThrowingTaskGroup(of: (Int, SmileIDEncryption.Keys).self) { group in
                for (field, index) in targets {
                    group.addTask {
                        (
                            index,
                            try await self.keys(
                                timestamp: stamp, requestID: "\(requestID):\(field)",
                                secrets: secrets)
                        )
                    }
                }
                return try await group.reduce(into: [Int: SmileIDEncryption.Keys]()) { $0[$1.0] = $1.1 }
            }
            for (field, index) in targets {
                let envelope = try SmileIDEncryption.encrypt(
                    Data(multipart.parts[index].body), keys: keys[index]!,
                    timestamp: stamp, iv: iv)
                multipart.parts[index] = .init(
                    field: field + "_encrypted", contentType: "application/octet-stream",
                    transferEncoding: "base64",
                    body: Array(try envelope.jsonData().base64EncodedString().utf8))
            }
            encrypted = Data(multipart.bytes)
        }
        for (name, value) in SmileIDEncryption.headers(requestId: requestID) where name != "Content-Type" {
            HeaderMap.set(name, value, in: &out)
        }
        HeaderMap.set(HeaderMap.timestamp, stamp, in: &out)
        HeaderMap.correctLength(encrypted.count, in: &out)
        return Output(decision: .encrypted(type), headers: out, body: encrypted)
    }

    /// The ENC-1 keys of one request id, from the signing secret version.
    func keys(timestamp: String, requestID: String, secrets: SecretSet) async throws -> SmileIDEncryption.Keys {
        let master = try await deriver.keys(
            versions: [secrets.signing],
            salt: SmileIDEncryption.salt(timestamp: timestamp, requestId: requestID))[0]
        return try SmileIDEncryption.keys(master: master)
    }

    /// What `Content-Type` makes of a request: JSON (`application/json`, `…+json`), ZIP
    /// (`application/zip`, `application/x-zip-compressed`), multipart (`multipart/form-data`).
    package static func requestType(contentType: String) -> EncryptResult.RequestType? {
        let media =
            contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
            .lowercased() ?? ""
        switch media {
        case "application/json": return .json
        case "application/zip", "application/x-zip-compressed", "application/x-zip": return .zip
        case "multipart/form-data": return .multipart
        default: return media.hasPrefix("application/") && media.hasSuffix("+json") ? .json : nil
        }
    }

    /// Parses a multipart body; a malformed one is rejected as `malformed_multipart`.
    static func parse(_ body: Data, contentType: String) throws(StageRejection) -> MultipartBody {
        do {
            return try MultipartBody(parsing: Array(body), boundary: MultipartBody.boundary(contentType: contentType) ?? "")
        } catch {
            throw StageRejection(GatewayRejection.malformedMultipart, error.reason)
        }
    }

    /// The parts ENC-1 encrypts, by field name. A field sent twice is ambiguous and rejected, and
    /// so is a body that already holds an `…_encrypted` field beside one to encrypt: the result
    /// would carry an envelope the gateway did not make, which no decryptor opens (found by the
    /// `enc1` fuzz target). A body of `…_encrypted` fields only has nothing to encrypt.
    static func fieldParts(_ body: MultipartBody) throws(StageRejection) -> [(field: String, index: Int)] {
        var found: [(String, Int)] = []
        for field in SmileIDEncryption.multipartFields {
            do {
                if let index = try body.uniquePart(named: field) { found.append((field, index)) }
            } catch {
                throw StageRejection(GatewayRejection.malformedMultipart, error.reason)
            }
        }
        if !found.isEmpty,
            let sealed = SmileIDEncryption.multipartFields.first(where: { field in
                body.parts.contains { $0.name == field + "_encrypted" }
            })
        {
            throw StageRejection(
                GatewayRejection.malformedMultipart,
                "the body already holds \(sealed)_encrypted beside a field to encrypt")
        }
        return found
    }
}
