import Foundation
import HallmarkEnvelope
import HallmarkRuntime

extension SignerProcessor {
    func verify(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        let request = try message.decode(VerifyRequest.self)
        let body = try Self.body(request.bodyB64)
        let outcome = try await verifier.verify(headers: request.headers, body: body, secrets: secrets.secrets,
                                                now: now())
        var verdict: (reason: VerifyReason?, version: String?)
        switch outcome {
        case .rejected(let reason):
            verdict = (reason, nil)
        case .valid(let version, let partner, let mac, let expires):
            var fresh = true
            if let pool = database {
                fresh = try await replay.claim(partner: partner, mac: mac, expires: expires,
                                               messageID: UUID(uuidString: message.header.id)!, pool: pool)
            }
            verdict = fresh ? (nil, version) : (.replay, nil)
        }
        let result = VerifyResult(
            id: MessageID.derived(from: message.header.id, "result"), producedAt: Timestamp.now(),
            correlationID: message.header.id, requestID: message.header.id,
            verdict: verdict.reason == nil ? "accepted" : "rejected", reason: verdict.reason?.rawValue,
            secretVersion: verdict.version, method: request.method, path: request.path, headers: request.headers,
            bodyB64: request.bodyB64)
        let key = Self.key(message, request.headers)
        var outputs = [try StageOutput.json(topic: configuration.verifyOutput, key: key, result)]
        if let reason = verdict.reason {
            metrics.rejected[reason]?.increment()
            context.logger.notice("verify rejected", metadata: ["reason": "\(reason.rawValue)"])
            if let event = securityEvent(for: request.headers, reason: reason, message: message) {
                outputs.append(try .json(topic: configuration.securityTopic, key: key, event))
            }
        } else {
            metrics.accepted.increment()
        }
        return outputs
    }

    /// An event when this rejection takes the partner past the configured rate.
    func securityEvent(for headers: [String: String], reason: VerifyReason, message: StageMessage) -> SecurityEvent? {
        let partner = HeaderMap.value(HeaderMap.partner, in: headers) ?? ""
        guard let count = limiter.record(partner: partner, now: now()) else { return nil }
        metrics.securityEvents.increment()
        return SecurityEvent(id: MessageID.derived(from: message.header.id, "security"), producedAt: Timestamp.now(),
                             service: "signer", instance: instance, event: .rejectionRate, severity: .warning,
                             requestId: message.header.id, reason: reason.rawValue, count: count,
                             partnerID: String(partner.prefix(128)), windowSeconds: Int(configuration.alertWindow))
    }
}
