import Crypto
import Foundation
import HallmarkCertificates
import HallmarkMessages
import Logging
import Synchronization
import X509

/// The aggregator's checks of a certificate bundle (DESIGN BM-CERT), made by itself: the
/// certificate reads (`invalid_certificate`), is within its validity period
/// (`certificate_expired`), chains to a trusted manufacturer CA (`untrusted_certificate`), and
/// its key signed the bundle in either form (`bad_signature`). What passes becomes the one
/// question for the authority, about the certificate's sealed handle; the certificate goes
/// no further.
///
/// The trusted CAs are the file `HALLMARK_AGGREGATOR_DEVICE_CA_FILE` names
/// (``ManufacturerTrust``), read again when it changes: a rotation needs no restart. Without
/// one, no certificate is trusted. A certificate's chain, once checked, is remembered for a
/// minute (and never past a CA's trust), by its digest: a camera sends the same certificate
/// with every bundle, and its chain is most of a check's cost.
package final class CertificateBundles: Sendable {
    /// A bundle that passed: the question about its device, its signed form, and its capture's
    /// keyed digest (``CaptureTokens``).
    package struct Passed: Sendable {
        let request: DeviceRequest
        let signedFields: DeviceCertificate.SignedFields
        let capture: Data
    }

    /// What a bundle's checks found.
    package enum Checked: Sendable {
        case passed(Passed)
        case refused(SubmissionResult.Reason)
    }

    let path: String?
    let captures: CaptureTokens
    let logger: Logger
    private let state = Mutex(State())

    struct State {
        var trust: ManufacturerTrust?
        /// The file's bytes when last read.
        var read: Data?
        var lookedAt: ContinuousClock.Instant?
        /// Chains that checked out, by certificate digest, until when that holds.
        var chains: [Data: ContinuousClock.Instant] = [:]
    }

    /// How often the file is looked at for a change.
    static let lookEvery: Duration = .seconds(2)
    /// How long a checked chain is remembered, and how many are.
    static let chainMemory: Duration = .seconds(60)
    static let chainCapacity = 4096

    package init(
        path: String?, captures: CaptureTokens, logger: Logger = Logger(label: "hallmark.aggregator.certificates")
    ) {
        self.path = path
        self.captures = captures
        self.logger = logger
    }

    /// The bundle's checks, in DESIGN's order of reasons; the refusal's reason, or what passed.
    package func check(_ submission: Submission, now: Date = Date()) async -> Checked {
        guard let text = submission.cameraCert, let hash = submission.imageHash, let signature = submission.bundleSignature
        else { return .refused(.malformed) }
        let certificate: DeviceCertificate
        do { certificate = try DeviceCertificate(transported: text) } catch { return .refused(.invalidCertificate) }
        if let refusal = await chain(certificate, now: now) { return .refused(Self.reason(refusal)) }
        let form: DeviceCertificate.SignedFields
        do {
            form = try certificate.signedFields(
                signature: signature, imageHash: hash, cameraCert: text, timestamp: submission.timestamp,
                gpsHash: submission.gpsHash)
        } catch {
            return .refused(Self.reason(error))
        }
        // A trusted certificate without a handle names no device the authority provisioned.
        guard let handle = certificate.handle else { return .refused(.unknownDevice) }
        return .passed(
            Passed(
                request: DeviceRequest(handle: Data(handle).base64EncodedString(), certificateSerial: certificate.serialHex),
                signedFields: form, capture: captures.digest(certificate: certificate.der, timestamp: submission.timestamp)))
    }

    /// The validity period, then the chain (remembered once it checks out).
    private func chain(_ certificate: DeviceCertificate, now: Date) async -> CertificateRefusal? {
        let c = certificate.certificate
        guard c.notValidBefore <= now, now <= c.notValidAfter else { return .certificateExpired }
        let digest = Data(SHA256.hash(data: certificate.der))
        let clock = ContinuousClock.now
        let (trusted, known) = state.withLock { state -> ([Certificate], Bool) in
            reload(&state, at: clock)
            let known = state.chains[digest].map { clock < $0 } ?? false
            return (state.trust?.trusted(at: now) ?? [], known)
        }
        if known { return nil }
        if let refusal = await certificate.check(trusting: trusted, at: now) { return refusal }
        // Remembered no longer than every CA it may have chained to stays trusted.
        let ends = state.withLock { $0.trust?.anchors.compactMap(\.trustedUntil).filter { $0 > now }.min() }
        let memory = min(Self.chainMemory, ends.map { .seconds($0.timeIntervalSince(now)) } ?? Self.chainMemory)
        state.withLock { state in
            if state.chains.count >= Self.chainCapacity { state.chains.removeAll(keepingCapacity: true) }
            state.chains[digest] = clock + memory
        }
        return nil
    }

    /// Reads the file again when it changed (looked at every ``lookEvery``; compared by its
    /// bytes, a few KiB: a Kubernetes ConfigMap is replaced behind symbolic links whose own
    /// times never change). A file that no longer reads keeps the CAs it had, and says so.
    private func reload(_ state: inout State, at clock: ContinuousClock.Instant) {
        guard let path, state.lookedAt.map({ clock - $0 >= Self.lookEvery }) ?? true else { return }
        state.lookedAt = clock
        let bytes = FileManager.default.contents(atPath: path)
        guard bytes != state.read else { return }
        state.read = bytes
        do {
            guard let bytes, let text = String(data: bytes, encoding: .utf8) else {
                throw ManufacturerTrust.ReadError("it cannot be read")
            }
            state.trust = try ManufacturerTrust.read(text)
            state.chains.removeAll()
            logger.info("manufacturer CAs read", metadata: ["cas": "\(state.trust?.anchors.count ?? 0)"])
        } catch {
            logger.warning("HALLMARK_AGGREGATOR_DEVICE_CA_FILE does not read", metadata: ["error": "\(error)"])
        }
    }

    static func reason(_ refusal: CertificateRefusal) -> SubmissionResult.Reason {
        switch refusal {
        case .invalidCertificate: .invalidCertificate
        case .untrustedCertificate: .untrustedCertificate
        case .certificateExpired: .certificateExpired
        case .badSignature: .badSignature
        }
    }
}
