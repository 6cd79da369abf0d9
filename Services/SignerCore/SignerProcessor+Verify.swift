import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID

extension SignerProcessor {
    /// Phase 1 of a verify request: the MAC and timestamp checks (PBKDF2 on the pool).
    func verify(_ message: StageMessage, _ carrier: RequestCarrier) async throws -> RequestVerifier.Outcome {
        return try await verifier.verify(
            headers: carrier.headers, body: try carrier.body(),
            secrets: secrets.secrets, now: now())
    }

    /// Phase 2: claims the replay key of a good MAC, then the verdict, and the security events
    /// ``SecurityEventLimiter`` allows for a rejection (``SignerEvents``).
    func verdict(
        _ message: StageMessage, _ carrier: RequestCarrier, _ outcome: RequestVerifier.Outcome,
        transaction: StageTransaction
    ) async throws -> [StageOutput] {
        var verdict: (reason: VerifyReason?, version: String?)
        switch outcome {
        case .rejected(let reason):
            verdict = (reason, nil)
        case .valid(let version, let replayKey, let expires):
            let id = UUID(text: message.header.id)!
            let fresh = try await replay.claim(replayKey, expires: expires, messageID: id, on: transaction.connection)
            verdict = fresh ? (nil, version) : (.replay, nil)
        }
        let result = VerifyResult(
            id: message.resultID, producedAt: Timestamp.now(),
            correlationID: message.correlationID, requestID: message.header.id, reason: verdict.reason,
            secretVersion: verdict.version, method: carrier.method, path: carrier.path, headers: carrier.headers,
            bodyB64: carrier.bodyB64)
        let key = Self.key(message, carrier.headers)
        var outputs = [try StageOutput.json(topic: message.replyTopic(or: configuration.verifyOutput), key: key, result)]
        if let reason = verdict.reason {
            metrics.rejected[reason]?.increment()
            let partner = HeaderMap.value(HeaderMap.partner, in: carrier.headers) ?? ""
            let decision = limiter.record(subject: partner, eventWorthy: SignerEvents.isEventWorthy(reason), now: now())
            outputs += try events.outputs(for: message, partner: partner, reason: reason, decision: decision)
        } else {
            metrics.accepted.increment()
        }
        return outputs
    }
}

extension SignerProcessor {
    /// A verify request refused with a readable id (a broken envelope, too large, an id already
    /// used on the sign topic or for other bytes, failing) is answered `rejected` on the verify
    /// result topic with the runtime's code (`malformed`, `oversized`, `id_reused`,
    /// `processing_failed`), echoing neither headers nor body. A refused sign request is
    /// answered the same way on the sign result topic, in its rejected form.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        if message.kafka.topic == configuration.signInput {
            let result = CarrierRejection<SignResult>.answer(
                message.resultID, requestID: message.id, correlationID: message.correlationID, code: message.resultReason,
                counting: metrics.signRejections)
            return [try .json(topic: message.replyTopic(or: configuration.signOutput), key: message.key, result)]
        }
        guard message.kafka.topic == configuration.verifyInput else { return nil }
        let reason = VerifyReason(rawValue: message.resultReason) ?? .malformed
        let result = VerifyResult(
            id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
            requestID: message.id, reason: reason, secretVersion: nil, method: nil, path: nil,
            headers: [:], bodyB64: "")
        metrics.rejected[reason]?.increment()
        return [try .json(topic: message.replyTopic(or: configuration.verifyOutput), key: message.key, result)]
    }

    /// A verify request that breaks its schema (a header name that is no token, a partner id
    /// the signer cannot key on, bad base64, …) is answered `malformed` on the verify result
    /// topic, as DESIGN SIGN-1 says. The request's parts are echoed only when the result's own
    /// schema takes them; otherwise the verdict carries no headers and no body. A sign request
    /// that breaks its schema is answered by ``answer(refused:)``, after its rejected record.
    public func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        guard message.kafka.topic == configuration.verifyInput else { return nil }
        func verdict(echoing echo: Bool) -> VerifyResult {
            let headers = echo ? message.fields["headers"]?.object?.compactMapValues(\.string) ?? [:] : [:]
            return VerifyResult(
                id: message.resultID, producedAt: Timestamp.now(),
                correlationID: message.correlationID, requestID: message.header.id, reason: .malformed,
                secretVersion: nil, method: echo ? message.fields["method"]?.string : nil,
                path: echo ? message.fields["path"]?.string : nil, headers: headers,
                bodyB64: echo ? message.fields["body_b64"]?.string ?? "" : "")
        }
        var result = verdict(echoing: true)
        if let schema = MessageSchemas.schema(VerifyResult.schemaName),
            schema.validate(try JSONReader.parse(JSONCoding.encode(result))) != nil
        {
            result = verdict(echoing: false)
        }
        metrics.rejected[.malformed]?.increment()
        return [try .json(topic: message.replyTopic(or: configuration.verifyOutput), key: message.key, result)]
    }
}

extension SignerProcessor {
    /// The answer to a rejected result given as a request (a chain's earlier stage refused
    /// it, so there is nothing to sign or verify): `upstream_rejected`, with its reason, on
    /// the input's result topic. It is an answer, not a fault: no rejected record.
    func upstream(_ message: StageMessage, _ reason: String) throws -> StageOutput {
        let key = Self.key(message, message.fields["headers"]?.object?.compactMapValues(\.string) ?? [:])
        if message.kafka.topic == configuration.signInput {
            let result = CarrierRejection<SignResult>.answer(
                message.resultID, requestID: message.header.id, correlationID: message.correlationID,
                code: RequestCarrier.upstreamRejected, upstreamReason: reason, counting: metrics.signRejections)
            return try .json(topic: message.replyTopic(or: configuration.signOutput), key: key, result)
        }
        metrics.rejected[.upstreamRejected]?.increment()
        let result = VerifyResult(
            id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
            requestID: message.header.id, reason: .upstreamRejected, secretVersion: nil, method: nil,
            path: nil, headers: [:], bodyB64: "", upstreamReason: reason)
        return try .json(topic: message.replyTopic(or: configuration.verifyOutput), key: key, result)
    }
}
