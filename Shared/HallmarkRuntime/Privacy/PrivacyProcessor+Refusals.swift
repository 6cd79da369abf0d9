import Foundation
import HallmarkCore
import HallmarkMessages

extension PrivacyProcessor {
    /// A refused request with a readable id, about a subject type this service holds, is
    /// answered `rejected` on the results topic (DESIGN §2); one whose action or subject type
    /// cannot be read has no answer a result's schema takes, and gets its rejected record only.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        guard let action = message.fields["action"]?.string.flatMap(PrivacyRequest.Action.init(rawValue:)),
            let type = message.fields["subject_type"]?.string.flatMap(PrivacyRequest.SubjectType.init(rawValue:)),
            holder.subjectTypes.contains(type)
        else { return nil }
        let result = PrivacyResult(
            service: audit.service, instance: instance, action: action, subjectType: type, status: .rejected,
            reason: PrivacyResult.Reason(rawValue: message.resultReason) ?? .malformed)
        let id = RefusedMessage.placeID(message.id, message.kafka, "privacy-\(audit.service)")
        return [try message.reply(result, id: id, or: topics.results, key: message.correlationID)]
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
