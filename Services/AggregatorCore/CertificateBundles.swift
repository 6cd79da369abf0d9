import Crypto
import Foundation
import HallmarkCertificates
import HallmarkMessages
import Logging
import ServiceLifecycle
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
/// (``ManufacturerTrust``), read at start and, while this runs as a service, again when it
/// changes (off the intake's path): a rotation needs no restart. Without
/// one, no certificate is trusted. A camera sends the same certificate with every bundle, so a
/// certificate read is remembered by the digest of its text as sent, and its chain, once
/// checked, for a minute (never past a CA's trust): what is left for each bundle is its
/// validity period and its signature, one ECDSA verification.
package final class CertificateBundles: Service, Sendable {
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
        var fileBytes: Data?
        /// Certificates read, by the SHA-256 of their text as sent.
        var certificates: [Data: Read] = [:]
    }

    /// A certificate read, what its question names, and until when its chain holds.
    struct Read {
        let certificate: DeviceCertificate
        /// Its handle (base64) and serial (hex); no handle, no device to ask about.
        let handle: String?
        let serial: String
        var chainUntil: ContinuousClock.Instant?
    }

    /// How often the file is looked at for a change.
    static let lookEvery: Duration = .seconds(2)
    /// How long a checked chain is remembered, and how many certificates are.
    static let chainMemory: Duration = .seconds(60)
    static let capacity = 4096

    package init(
        path: String?, captures: CaptureTokens, logger: Logger = Logger(label: "hallmark.aggregator.certificates")
    ) {
        self.path = path
        self.captures = captures
        self.logger = logger
        reload()
    }

    /// Looks at the file every ``lookEvery`` until graceful shutdown, and reads it again when it
    /// changed. Run only with a file.
    package func run() async throws {
        try? await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                try await Task.sleep(for: Self.lookEvery)
                reload()
            }
        }
    }

    /// The bundle's checks, in DESIGN's order of reasons; the refusal's reason, or what passed.
    package func check(_ submission: Submission, now: Date = Date()) async -> Checked {
        guard let text = submission.cameraCert, let hash = submission.imageHash, let signature = submission.bundleSignature
        else { return .refused(.malformed) }
        let key = Data(SHA256.hash(data: Data(text.utf8)))
        let clock = ContinuousClock.now
        var read: Read
        let (known, trusted) = state.withLock { state in (state.certificates[key], state.trust) }
        if let known {
            read = known
        } else {
            let certificate: DeviceCertificate
            do { certificate = try DeviceCertificate(transported: text) } catch { return .refused(.invalidCertificate) }
            read = Read(
                certificate: certificate, handle: certificate.handle.map { Data($0).base64EncodedString() },
                serial: certificate.serialHex)
        }
        let certificate = read.certificate
        if let refusal = certificate.validity(at: now) { return .refused(Self.reason(refusal)) }
        if read.chainUntil.map({ clock >= $0 }) ?? true {
            if let refusal = await certificate.chain(trusting: trusted?.trusted(at: now) ?? [], at: now) {
                return .refused(Self.reason(refusal))
            }
            // Remembered no longer than every CA it may have chained to stays trusted.
            let ends = trusted?.anchors.compactMap(\.trustedUntil).filter { $0 > now }.min()
            read.chainUntil = clock + min(Self.chainMemory, ends.map { .seconds($0.timeIntervalSince(now)) } ?? Self.chainMemory)
            state.withLock { [read] state in
                if state.certificates.count >= Self.capacity { state.certificates.removeAll(keepingCapacity: true) }
                state.certificates[key] = read
            }
        }
        let form: DeviceCertificate.SignedFields
        do {
            form = try certificate.signedFields(
                signature: signature, imageHash: hash, cameraCert: text, timestamp: submission.timestamp,
                gpsHash: submission.gpsHash)
        } catch {
            return .refused(Self.reason(error))
        }
        // A trusted certificate without a handle names no device the authority provisioned.
        guard let handle = read.handle else { return .refused(.unknownDevice) }
        return .passed(
            Passed(
                request: DeviceRequest(handle: handle, certificateSerial: read.serial), signedFields: form,
                capture: captures.digest(certificate: certificate.der, timestamp: submission.timestamp)))
    }

    /// Reads the file again when it changed, compared by its bytes (a few KiB: a Kubernetes
    /// ConfigMap is replaced behind symbolic links whose own times never change), outside the
    /// lock. A file that no longer reads keeps the CAs it had, and says so.
    private func reload() {
        guard let path else { return }
        let bytes = FileManager.default.contents(atPath: path)
        guard bytes != state.withLock({ $0.fileBytes }) else { return }
        let trust: ManufacturerTrust?
        do {
            guard let bytes, let text = String(data: bytes, encoding: .utf8) else {
                throw ManufacturerTrust.ReadError("it cannot be read")
            }
            trust = try ManufacturerTrust.read(text)
            logger.info("manufacturer CAs read", metadata: ["cas": "\(trust?.anchors.count ?? 0)"])
        } catch {
            trust = nil
            logger.warning("HALLMARK_AGGREGATOR_DEVICE_CA_FILE does not read", metadata: ["error": "\(error)"])
        }
        state.withLock { state in
            state.fileBytes = bytes
            guard let trust else { return }
            state.trust = trust
            state.certificates.removeAll()
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
