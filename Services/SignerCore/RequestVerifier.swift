import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID
import HallmarkZip

/// SIGN-1 / SIGN-FILES verification of one request, except the replay check (phase 2; see
/// ``ReplayStore``). Cheap checks run first, so a stale or headerless request costs no PBKDF2.
///
/// A body that starts like a zip is read as one by ``ZipUploadReader``: if the archive
/// breaks a rule or a limit the request is `malformed` at once; if it has no
/// `security_info.json` it is a plain SIGN-1 payload; otherwise SIGN-FILES applies, with the
/// archive's memory reserved until the MAC is checked.
package struct RequestVerifier: Sendable {
    /// What the checks concluded.
    package enum Outcome: Sendable, Equatable {
        /// The MAC is good: `replayKey` is remembered until `expires`.
        case valid(version: String, replayKey: ReplayKey, expires: Date)
        case rejected(VerifyReason)
    }

    /// The signed bytes, and how to retry them if the first try fails.
    struct Signed {
        var mac: String
        var timestamp: String
        var data: Data
        var isZip = false
        var canonicalRetry: (() throws -> Data?)?
    }

    let deriver: KeyDeriver
    /// ± seconds a timestamp may be from now.
    package let window: TimeInterval
    let zips: ZipUploadReader

    package init(deriver: KeyDeriver, window: TimeInterval, zips: ZipUploadReader) {
        self.deriver = deriver
        self.window = window
        self.zips = zips
    }

    package func verify(headers: [String: String], body: Data, secrets: SecretSet, now: Date) async throws -> Outcome {
        guard let lower = HeaderMap.lowercased(headers) else { return .rejected(.malformed) }
        if ZipUpload.looksLikeZip(body) {
            let read: ZipUploadReader.Read
            do {
                read = try await zips.read(body)
            } catch let error as ZipError where error.code == .invalid {
                return .rejected(.malformed)
            }
            if case .upload(let upload, let reservation) = read {
                // The files stay reserved until their MAC is checked.
                defer { reservation.release() }
                guard let info = try? SmileIDSecurityInfo.parse(upload.securityInfo) else { return .rejected(.malformed) }
                let signed = Signed(mac: info.mac, timestamp: info.timestamp, data: upload.signingData, isZip: true)
                return try await check(signed, lower: lower, secrets: secrets, now: now)
            }
        }
        guard let mac = lower["smileid-request-mac"], let timestamp = lower["smileid-request-timestamp"] else {
            return .rejected(.missingHeader)
        }
        guard let headerJSON = try? SmileIDSignature.headersJSON(headers) else { return .rejected(.malformed) }
        let signed = Signed(
            mac: mac, timestamp: timestamp, data: headerJSON + body,
            canonicalRetry: {
                guard let canonical = SmileIDSignature.canonicalBody(body), canonical != body else { return nil }
                return headerJSON + canonical
            })
        return try await check(signed, lower: lower, secrets: secrets, now: now)
    }

    /// The partner, MAC and timestamp checks, then the MAC itself.
    func check(_ signed: Signed, lower: [String: String], secrets: SecretSet, now: Date) async throws -> Outcome {
        guard let partner = lower["smileid-partner-id"], !partner.isEmpty else { return .rejected(.missingHeader) }
        guard ReplayKey.isValidPartner(partner) else { return .rejected(.malformed) }
        let mac = signed.mac.trimmingCharacters(in: .whitespaces)
        guard let expected = try? Base64.decode(mac, length: 32) else { return .rejected(.malformed) }
        switch SmileIDTimestamp.check(signed.timestamp, now: now, window: window) {
        case .ok: break
        case .stale: return .rejected(.staleTimestamp)
        case .future: return .rejected(.futureTimestamp)
        case .malformed: return .rejected(.malformed)
        }
        let expires = Timestamp.parse(signed.timestamp)!.addingTimeInterval(window)
        // A zip's MAC covers no header: its replay key is the MAC alone, so changing the
        // partner header cannot make a replayed zip new.
        let key = ReplayKey(partner: signed.isZip ? nil : partner, mac: mac)
        if let version = try await match(
            expected, data: signed.data, timestamp: signed.timestamp, secrets: secrets,
            onPool: signed.isZip)
        {
            return .valid(version: version, replayKey: key, expires: expires)
        }
        // iOS SDKs sign the canonical encoding of a JSON body but may send it re-encoded.
        if let retry = try signed.canonicalRetry?(),
            let version = try await match(
                expected, data: retry, timestamp: signed.timestamp, secrets: secrets,
                onPool: false)
        {
            return .valid(version: version, replayKey: key, expires: expires)
        }
        return .rejected(.badMAC)
    }

    /// The version whose key reproduces `expected`; every version is compared (constant-time
    /// each), so timing does not tell which matched. A zip's HMACs (over up to the cap, as
    /// base64) run on the zip pool rather than on a task.
    func match(_ expected: Data, data: Data, timestamp: String, secrets: SecretSet, onPool: Bool) async throws -> String? {
        let salt = SmileIDSignature.salt(dataCount: data.count, timestamp: timestamp)
        let keys = try await deriver.keys(versions: secrets.versions, salt: salt)
        let versions = secrets.versions
        let compare: @Sendable () -> String? = {
            var found: String?
            for (version, key) in zip(versions, keys)
            where HMACSHA256.verify(mac: expected, key: key, data: data) && found == nil {
                found = version.version
            }
            return found
        }
        return onPool ? try await zips.pool.perform(compare) : compare()
    }
}
