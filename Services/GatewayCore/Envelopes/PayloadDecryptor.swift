import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID

/// ENC-1 decryption of one received request. Cheap checks come first (headers, envelope
/// shape, timestamp window), so a malformed or stale request costs no PBKDF2; then every
/// configured secret version is tried (their derivations go to the pool together). Nothing is
/// returned unless every encrypted part opened: never partial plaintext.
public struct PayloadDecryptor: Sendable {
    public enum Outcome: Sendable, Equatable {
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
    public let window: TimeInterval

    public init(deriver: KeyDeriver, window: TimeInterval) {
        self.deriver = deriver
        self.window = window
    }

    public func decrypt(headers: [String: String], body: Data, secrets: SecretSet, now: Date) async throws -> Outcome {
        guard let lower = HeaderMap.lowercased(headers) else { return .rejected(.malformedEnvelope) }
        guard let version = lower["smileid-encryption-version"], let requestID = lower["smileid-request-id"],
              !requestID.isEmpty, lower["smileid-content-encrypted"]?.lowercased() == "true" else {
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
                    let indices = parts.parts.indices.filter { parts.parts[$0].name == field + "_encrypted" }
                    guard indices.count <= 1 else { return .rejected(.malformedEnvelope) }
                    guard let index = indices.first else { continue }
                    let text = String(decoding: parts.parts[index].body, as: UTF8.self)
                    sealed.append(Sealed(envelope: try SmileIDEnvelope.parse(Base64.decode(text)),
                                         requestID: "\(requestID):\(field)", part: (index, field)))
                }
                guard !sealed.isEmpty else { return .rejected(.malformedEnvelope) }
            } else {
                sealed = [Sealed(envelope: try SmileIDEnvelope.parse(body), requestID: requestID)]
            }
        } catch {
            return .rejected(.malformedEnvelope)
        }
        for item in sealed {
            let e = item.envelope
            guard e.version == SmileIDEnvelope.currentVersion, e.algorithm == SmileIDEnvelope.algorithmName else {
                return .rejected(.unsupportedVersion)
            }
            guard (try? Base64.decode(e.iv, length: 12)) != nil, (try? Base64.decode(e.authTag, length: 16)) != nil,
                  (try? Base64.decode(e.encryptedData)) != nil else { return .rejected(.malformedEnvelope) }
            guard let stamp = Timestamp.parse(e.timestamp) else { return .rejected(.malformedEnvelope) }
            guard abs(stamp.timeIntervalSince(now)) <= window else { return .rejected(.staleTimestamp) }
        }
        var plaintexts: [Data] = []
        for item in sealed {
            guard let plaintext = try await open(item, secrets: secrets) else { return .rejected(.authenticationFailed) }
            plaintexts.append(plaintext)
        }
        var out = headers
        for name in GatewayHeaders.added { HeaderMap.set(name, "", in: &out); out[name] = nil }
        guard var multipart else {
            let plaintext = plaintexts[0]
            HeaderMap.set("Content-Type", ZipUpload.looksLikeZip(plaintext) ? "application/zip" : "application/json",
                          in: &out)
            return .decrypted(headers: Self.fixLength(out, plaintext.count), body: plaintext)
        }
        for (item, plaintext) in zip(sealed, plaintexts) {
            // A field that would read as a delimiter cannot have come from a real body.
            guard let part = item.part, multipart.canHold(Array(plaintext)) else { return .rejected(.malformedEnvelope) }
            multipart.parts[part.index] = .init(field: part.field, contentType: "application/json", body: Array(plaintext))
        }
        let rebuilt = Data(multipart.bytes)
        return .decrypted(headers: Self.fixLength(out, rebuilt.count), body: rebuilt)
    }

    /// Opens one envelope with whichever secret version made it; nil when none does.
    func open(_ item: Sealed, secrets: SecretSet) async throws -> Data? {
        let salt = SmileIDEncryption.salt(timestamp: item.envelope.timestamp, requestId: item.requestID)
        let masters = try await deriver.keys(versions: secrets.versions, salt: salt)
        for master in masters {
            if let plaintext = try? SmileIDEncryption.decrypt(item.envelope, keys: SmileIDEncryption.keys(master: master)) {
                return plaintext
            }
        }
        return nil
    }

    static func fixLength(_ headers: [String: String], _ count: Int) -> [String: String] {
        var out = headers
        if HeaderMap.value("Content-Length", in: out) != nil { HeaderMap.set("Content-Length", "\(count)", in: &out) }
        return out
    }
}
