import Foundation
import HallmarkCore
import HallmarkMessages

extension PrivacyProcessor {
    /// A refused message with a readable id is answered `rejected` on the results topic by
    /// every service that refuses it, whatever its subject type: the runtime refuses a broken
    /// message in every service, so each one answers, and a caller waiting for its answers
    /// never waits for ever (DESIGN §2). The answer names the action and subject type when the
    /// message is a privacy request and they read; its reason is the one its security event
    /// carries for a schema violation (``violationReason(_:)``), else the runtime's code
    /// (``RefusedMessage/resultReason``).
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let request = message.schema == PrivacyRequest.schemaName ? message.fields : [:]
        let reason =
            message.schema == PrivacyRequest.schemaName && message.reason == .schemaViolation
            ? Self.violationReason(message.fields)
            : PrivacyResult.Reason(rawValue: message.resultReason) ?? .malformed
        let result = PrivacyResult(
            service: audit.service, instance: instance,
            action: request["action"]?.string.flatMap(PrivacyRequest.Action.init(rawValue:)),
            subjectType: request["subject_type"]?.string.flatMap(PrivacyRequest.SubjectType.init(rawValue:)),
            status: .rejected, reason: reason)
        let id = RefusedMessage.placeID(message.id, message.kafka, "privacy-\(audit.service)")
        return [try message.reply(result, id: id, or: topics.results, key: message.correlationID)]
    }

    /// Why a request that breaks its schema is refused: `unsigned_request` when its key id or
    /// signature is missing, `malformed` otherwise.
    static func violationReason(_ fields: [String: JSONValue]) -> PrivacyResult.Reason {
        fields["key_id"]?.string == nil || fields["signature"]?.string == nil ? .unsignedRequest : .malformed
    }

    /// A signed request published again after it was answered is a replay: answered
    /// `rejected` / `replayed_command` (`stale_request` once outside its window) with a
    /// security event, and never acted on twice (DESIGN §2).
    public func refuse(resent message: StageMessage) throws -> StageRejection? {
        let request = try message.decode(PrivacyRequest.self)
        guard holder.subjectTypes.contains(request.subjectType) else { return nil }
        let reason: PrivacyResult.Reason = isInWindow(message.header) ? .replayedCommand : .staleRequest
        let result = PrivacyResult(
            service: audit.service, instance: instance, action: request.action, subjectType: request.subjectType,
            status: .rejected, reason: reason)
        // Each service answers on the one results topic, and a replay's answer is a new one.
        let id = RefusedMessage.placeID(message.header.id, message.kafka, "privacy-\(audit.service)")
        return StageRejection(
            RejectionReason(reason.rawValue), "a replay of an answered privacy request",
            sending: [
                try message.reply(result, id: id, or: topics.results, key: message.correlationID),
                try securityEvent(message, reason, request.keyID),
            ])
    }
}
