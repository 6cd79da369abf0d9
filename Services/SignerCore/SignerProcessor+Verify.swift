import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID

extension SignerProcessor {
    /// Phase 1 of a verify request: the MAC and timestamp checks (PBKDF2 on the pool).
    func verify(_ message: StageMessage, _ carrier: RequestCarrier) async throws -> RequestVerifier.Outcome {
        // An accepted verify result may be verified again; a rejected one carries no request to check.
        if message.header.schema == VerifyResult.schemaName, message.fields["verdict"]?.string != "accepted" {
            throw StageRejection(.schemaViolation, "a rejected verify result is not a request to verify")
        }
        return try await verifier.verify(headers: carrier.headers, body: try Self.body(carrier.bodyB64),
                                         secrets: secrets.secrets, now: now())
    }

    /// Phase 2: claims the replay key of a good MAC, then the verdict, and the security events
    /// ``SecurityEventLimiter`` allows for a rejection (``SignerEvents``).
    func verdict(_ message: StageMessage, _ carrier: RequestCarrier, _ outcome: RequestVerifier.Outcome,
                 context: StageCommitContext) async throws -> [StageOutput] {
        var verdict: (reason: VerifyReason?, version: String?)
        switch outcome {
        case .rejected(let reason):
            verdict = (reason, nil)
        case .valid(let version, let replayKey, let expires):
            let id = UUID(uuidString: message.header.id)!
            var fresh = true
            if let connection = context.connection {
                fresh = try await replay.claim(replayKey, expires: expires, messageID: id, on: connection)
            } else if let pool = context.pool {
                fresh = try await replay.claim(replayKey, expires: expires, messageID: id, on: pool)
            }
            verdict = fresh ? (nil, version) : (.replay, nil)
        }
        let result = VerifyResult(
            id: MessageID.derived(from: message.header.id, "result"), producedAt: Timestamp.now(),
            correlationID: message.correlationID, requestID: message.header.id, reason: verdict.reason,
            secretVersion: verdict.version, method: carrier.method, path: carrier.path, headers: carrier.headers,
            bodyB64: carrier.bodyB64)
        let key = Self.key(message, carrier.headers)
        var outputs = [try StageOutput.json(topic: message.replyTopic(or: configuration.verifyOutput), key: key, result)]
        if let reason = verdict.reason {
            metrics.rejected[reason]?.increment()
            let partner = HeaderMap.value(HeaderMap.partner, in: carrier.headers) ?? ""
            let decision = limiter.record(partner: partner, eventWorthy: SignerEvents.isEventWorthy(reason), now: now())
            outputs += try events.outputs(for: message, partner: partner, reason: reason, decision: decision)
        } else {
            metrics.accepted.increment()
        }
        return outputs
    }
}
