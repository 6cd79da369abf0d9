import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID

/// SIGN-1 / SIGN-FILES verification of one request, except the replay check (phase 2; see
/// ``ReplayStore``). Cheap checks run first, so a stale or headerless request costs no PBKDF2.
public struct RequestVerifier: Sendable {
    /// What the checks concluded.
    public enum Outcome: Sendable, Equatable {
        /// The MAC is good: `replayKey` is remembered until `expires`.
        case valid(version: String, replayKey: ReplayKey, expires: Date)
        case rejected(VerifyReason)
    }

    let deriver: KeyDeriver
    /// ± seconds a timestamp may be from now.
    public let window: TimeInterval
    let maxZipBytes: Int

    public init(deriver: KeyDeriver, window: TimeInterval, maxZipBytes: Int) {
        self.deriver = deriver
        self.window = window
        self.maxZipBytes = maxZipBytes
    }

    public func verify(headers: [String: String], body: Data, secrets: SecretSet, now: Date) async throws -> Outcome {
        guard let lower = HeaderMap.lowercased(headers) else { return .rejected(.malformed) }
        var mac: String
        let timestamp: String
        var signed: Data
        var canonicalRetry: (() throws -> Data?)?
        var isZip = false
        if ZipUpload.looksLikeZip(body), let upload = try? ZipUpload.read(body, maxBytes: maxZipBytes) {
            isZip = true
            guard let info = try? SmileIDSecurityInfo.parse(upload.securityInfo) else { return .rejected(.malformed) }
            (mac, timestamp) = (info.mac, info.timestamp)
            signed = SmileIDFileSignature.signingData(files: upload.files)
        } else {
            guard let m = lower["smileid-request-mac"], let t = lower["smileid-request-timestamp"] else {
                return .rejected(.missingHeader)
            }
            (mac, timestamp) = (m, t)
            guard let headerJSON = try? SmileIDSignature.headersJSON(headers) else { return .rejected(.malformed) }
            signed = headerJSON + body
            canonicalRetry = {
                guard let canonical = SmileIDSignature.canonicalBody(body), canonical != body else { return nil }
                return headerJSON + canonical
            }
        }
        guard let partner = lower["smileid-partner-id"], !partner.isEmpty else { return .rejected(.missingHeader) }
        guard ReplayKey.isValidPartner(partner) else { return .rejected(.malformed) }
        mac = mac.trimmingCharacters(in: .whitespaces)
        guard let expected = try? Base64.decode(mac, length: 32) else { return .rejected(.malformed) }
        switch SmileIDTimestamp.check(timestamp, now: now, window: window) {
        case .ok: break
        case .stale: return .rejected(.staleTimestamp)
        case .future: return .rejected(.futureTimestamp)
        case .malformed: return .rejected(.malformed)
        }
        let expires = Timestamp.parse(timestamp)!.addingTimeInterval(window)
        // A zip's MAC covers no header: its replay key is the MAC alone, so changing the
        // partner header cannot make a replayed zip new.
        let key = ReplayKey(partner: isZip ? nil : partner, mac: mac)
        if let version = try await match(expected, data: signed, timestamp: timestamp, secrets: secrets) {
            return .valid(version: version, replayKey: key, expires: expires)
        }
        // iOS SDKs sign the canonical encoding of a JSON body but may send it re-encoded.
        if let retry = try canonicalRetry?(),
           let version = try await match(expected, data: retry, timestamp: timestamp, secrets: secrets) {
            return .valid(version: version, replayKey: key, expires: expires)
        }
        return .rejected(.badMAC)
    }

    /// The version whose key reproduces `expected`; every version is compared (constant-time
    /// each), so timing does not tell which matched.
    func match(_ expected: Data, data: Data, timestamp: String, secrets: SecretSet) async throws -> String? {
        let salt = SmileIDSignature.salt(dataCount: data.count, timestamp: timestamp)
        let keys = try await deriver.keys(versions: secrets.versions, salt: salt)
        var found: String?
        for (version, key) in zip(secrets.versions, keys)
        where HMACSHA256.verify(mac: expected, key: key, data: data) && found == nil {
            found = version.version
        }
        return found
    }
}
