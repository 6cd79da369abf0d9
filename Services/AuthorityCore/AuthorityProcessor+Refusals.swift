import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension AuthorityProcessor {
    /// A refused provisioning request with a readable id is answered `rejected` on the
    /// provisioning result topic (DESIGN §2); an admin command has no result topic: its
    /// rejected record (and, for `id_reused`, the runtime's security event) is its answer.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        guard message.kafka.topic == configuration.provisionInput else { return nil }
        let reason = ProvisionResult.Reason(rawValue: message.resultReason) ?? .malformed
        let serial = message.fields["device_serial"]?.string.flatMap { ProvisionRequest.isValidSerial($0) ? $0 : nil }
        let result = ProvisionResult(deviceSerial: serial, status: .rejected, reason: reason)
        metrics.record(result)
        return [try message.reply(result, or: configuration.provisionOutput, key: serial ?? message.key)]
    }

    /// A signed admin command published again after it was answered is a replay: refused
    /// `replayed_command` (`stale_command` once outside its window), with a security event, and
    /// never acted on twice. A provisioning request sent again is a redelivery: its first answer.
    package func refuse(resent message: StageMessage) throws -> StageRejection? {
        guard message.header.schema == AdminCommand.schemaName else { return nil }
        let keyID = message.fields["key_id"]?.string
        let stale: Bool
        do {
            _ = try verifier.verify(message)
            stale = false
        } catch let refusal as AdminCommandVerifier.Refusal {
            // It verified once; only its time can have run out since.
            stale = refusal.reason == AdminCommandVerifier.stale
        }
        let reason = stale ? AdminCommandVerifier.stale : AdminCommandVerifier.replayed
        let event = try events.output(
            for: message, .replayedCommand, .critical, reason: reason.rawValue, keyID: keyID,
            idSeed: RefusedMessage.placeID(message.header.id, message.kafka, "replay"))
        return StageRejection(
            reason,
            stale
                ? "a replay of an answered command, now outside its window"
                : "a replay of an answered command", sending: [event])
    }
}
