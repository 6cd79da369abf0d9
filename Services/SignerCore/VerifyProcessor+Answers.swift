import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension VerifyProcessor {
    /// A verify request refused with a readable id (a broken envelope, too large, an id already
    /// used on the sign topic or for other bytes, failing) is answered `rejected` on the verify
    /// result topic with the runtime's code (`malformed`, `oversized`, `id_reused`,
    /// `processing_failed`), echoing neither headers nor body.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let reason = VerifyReason(rawValue: message.resultReason) ?? .malformed
        let result = VerifyResult(
            reason: reason, secretVersion: nil, method: nil, path: nil, headers: [:], bodyB64: "")
        metrics.rejected[reason]?.increment()
        return [try message.reply(result, or: configuration.verifyOutput)]
    }

    /// A verify request that breaks its schema (a header name that is no token, a partner id
    /// the signer cannot key on, bad base64, …) is answered `malformed` on the verify result
    /// topic, as DESIGN SIGN-1 says. The request's parts are echoed only when the result's own
    /// schema takes them; otherwise the verdict carries no headers and no body. A sign request
    /// that breaks its schema is answered by ``SignProcessor/answer(refused:)``, after its
    /// rejected record.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        func verdict(echoing echo: Bool) -> VerifyResult {
            let headers = echo ? message.fields["headers"]?.object?.compactMapValues(\.string) ?? [:] : [:]
            return VerifyResult(
                reason: .malformed, secretVersion: nil, method: echo ? message.fields["method"]?.string : nil,
                path: echo ? message.fields["path"]?.string : nil, headers: headers,
                bodyB64: echo ? message.fields["body_b64"]?.string ?? "" : "")
        }
        var result = verdict(echoing: true)
        if let schema = MessageSchemas.schema(VerifyResult.schemaName),
            schema.validate(try JSONReader.parse(JSONCoding.encode(message.answer(result)))) != nil
        {
            result = verdict(echoing: false)
        }
        metrics.rejected[.malformed]?.increment()
        return [try message.reply(result, or: configuration.verifyOutput)]
    }
}
