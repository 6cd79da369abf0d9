import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID
import HallmarkZip

/// ENC-1 decryption of one received request. Cheap checks come first (headers, envelope
/// shape, timestamp window), so a malformed or stale request costs no PBKDF2; then every
/// configured secret version is tried (their derivations go to the pool together). Nothing is
/// returned unless every encrypted part opened: never partial plaintext.
package struct PayloadDecryptor: Sendable {
    package enum Outcome: Sendable, Equatable {
        /// The request as it was before encryption: ENC-1 headers removed, `Content-Type` restored.
        case decrypted(headers: [String: String], body: Data)
        case rejected(DecryptResult.Reason)
    }

    /// One envelope to open: where it goes and the request id its key is salted with.
    struct Sealed {
        var envelope: SmileIDEnvelope
        var requestID: String
        var part: (index: Int, field: String)?
    }

    let deriver: KeyDeriver
    /// ± seconds an envelope's timestamp may be from now.
    package let window: TimeInterval

    package init(deriver: KeyDeriver, window: TimeInterval) {
        self.deriver = deriver
        self.window = window
    }

    package func decrypt(headers: [String: String], body: Data, secrets: SecretSet, now: Date) async throws -> Outcome {
        guard let lower = HeaderMap.lowercased(headers) else { return .rejected(.malformedEnvelope) }
        // `SmileID-Content-Encrypted` is exactly `true`, as ENC-1 writes it (like the version,
        // compared exactly): any other value, `TRUE` included, does not say the body is encrypted.
        guard let version = lower["smileid-encryption-version"], let requestID = lower["smileid-request-id"],
            !requestID.isEmpty, lower["smileid-content-encrypted"] == "true"
        else {
            return .rejected(.missingHeader)
        }
        guard version == SmileIDEnvelope.currentVersion else { return .rejected(.unsupportedVersion) }
        let contentType = lower["content-type"] ?? ""
        var multipart: MultipartBody?
        var sealed: [Sealed] = []
        do {
            if let boundary = MultipartBody.boundary(contentType: contentType) {
                let parts = try MultipartBody(parsing: Array(body), boundary: boundary)
                multipart = parts
                for field in SmileIDEncryption.multipartFields {
                    guard let index = try parts.uniquePart(named: field + "_encrypted") else { continue }
                    let text = String(decoding: parts.parts[index].body, as: UTF8.self)
                    sealed.append(
                        Sealed(
                            envelope: try SmileIDEnvelope.parse(Base64.decode(text)),
                            requestID: "\(requestID):\(field)", part: (index, field)))
                }
                guard !sealed.isEmpty else { return .rejected(.malformedEnvelope) }
            } else {
                sealed = [Sealed(envelope: try SmileIDEnvelope.parse(body), requestID: requestID)]
            }
        } catch {
            return .rejected(.malformedEnvelope)
        }
        // Each envelope's bytes are decoded once here and opened from that under every version.
        var boxes: [AESGCM256.Sealed] = []
        for item in sealed {
            let e = item.envelope
            guard e.version == SmileIDEnvelope.currentVersion, e.algorithm == SmileIDEnvelope.algorithmName else {
                return .rejected(.unsupportedVersion)
            }
            guard let iv = try? Base64.decode(e.iv, length: AESGCM256.nonceLength),
                let tag = try? Base64.decode(e.authTag, length: AESGCM256.tagLength),
                let ciphertext = try? Base64.decode(e.encryptedData)
            else { return .rejected(.malformedEnvelope) }
            guard let stamp = Timestamp.parse(e.timestamp) else { return .rejected(.malformedEnvelope) }
            guard abs(stamp.timeIntervalSince(now)) <= window else { return .rejected(.staleTimestamp) }
            boxes.append(AESGCM256.Sealed(nonce: iv, ciphertext: ciphertext, tag: tag))
        }
        var plaintexts: [Data] = []
        for (item, box) in zip(sealed, boxes) {
            guard let plaintext = try await open(box, item, secrets: secrets) else { return .rejected(.authenticationFailed) }
            plaintexts.append(plaintext)
        }
        var out = headers
        for name in GatewayHeaders.added { HeaderMap.remove(name, from: &out) }
        guard var multipart else {
            let plaintext = plaintexts[0]
            HeaderMap.set(
                "Content-Type", ZipUpload.looksLikeZip(plaintext) ? "application/zip" : "application/json",
                in: &out)
            HeaderMap.correctLength(plaintext.count, in: &out)
            return .decrypted(headers: out, body: plaintext)
        }
        for (item, plaintext) in zip(sealed, plaintexts) {
            // A field that would read as a delimiter cannot have come from a real body.
            guard let part = item.part, multipart.canHold(Array(plaintext)) else { return .rejected(.malformedEnvelope) }
            multipart.parts[part.index] = .init(field: part.field, contentType: "application/json", body: Array(plaintext))
        }
        let rebuilt = Data(multipart.bytes)
        HeaderMap.correctLength(rebuilt.count, in: &out)
        return .decrypted(headers: out, body: rebuilt)
    }

    /// Opens one envelope with whichever secret version made it; nil when none does.
    func open(_ box: AESGCM256.Sealed, _ item: Sealed, secrets: SecretSet) async throws -> Data? {
        let salt = SmileIDEncryption.salt(timestamp: item.envelope.timestamp, requestId: item.requestID)
        let masters = try await deriver.keys(versions: secrets.versions, salt: salt)
        for master in masters {
            if let plaintext = try? AESGCM256.open(box, key: SmileIDEncryption.keys(master: master).encKey) {
                return plaintext
            }
        }
        return nil
    }
}
