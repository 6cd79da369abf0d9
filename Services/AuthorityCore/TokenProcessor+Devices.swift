import Foundation
import HallmarkCrypto
import HallmarkMessages

extension TokenProcessor {
    /// Opens a device question's handle (DESIGN BM-CERT): `malformed` when the question cannot
    /// be read, `unknown_device` when the handle was not sealed by this authority into that
    /// certificate. The question holds the handle and the certificate's serial only: never an
    /// image hash, a capture time or the certificate.
    func openHandle(_ j: inout Judgement) throws {
        guard let request = try? j.message.decode(DeviceRequest.self), let handle = Data(base64Encoded: request.handle)
        else { return j.decide(.malformed) }
        guard
            let serial = DeviceCertificateIssuer.device(
                handle: handle, certificateSerial: request.certificateSerial, secrets: secrets)
        else {
            j.security.append(try events.output(for: j.message, .tokenRejected, .warning, reason: "unknown_device"))
            return j.decide(.token(.unknownDevice))
        }
        j.serial = serial
    }

    /// Judges the open device questions by their devices, read now (one query): `unknown_device`
    /// for a serial no longer provisioned, `blacklisted`, else PASS; counted towards the abuse
    /// thresholds as a token's validation is.
    func judgeCertified(_ all: inout [Judgement]) async throws {
        let open = all.indices.filter { !all[$0].decided && all[$0].asksDevice }
        guard !open.isEmpty else { return }
        let found = try await devices.lookup(serials: open.compactMap { all[$0].serial }, pool: pool)
        for i in open {
            guard let serial = all[i].serial, let device = found[serial] else {
                all[i].security.append(
                    try events.output(for: all[i].message, .tokenRejected, .warning, reason: "unknown_device"))
                all[i].decide(.token(.unknownDevice))
                continue
            }
            try await judge(&all[i], device: device)
        }
    }
}
