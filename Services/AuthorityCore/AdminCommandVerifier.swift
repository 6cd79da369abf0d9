import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime

/// Checks an admin command before the authority acts on it (phase 1, no transaction): signed
/// (`unsigned_command`), by a configured operator key (`unknown_key`), over exactly the
/// members received (`bad_signature`, see ``OperatorSignature``), and produced
/// within the window either side of now (`stale_command`). The time is checked last, so it is
/// always an authenticated `produced_at`.
///
/// A command published again after it was answered (the same bytes as a new record) is a
/// replay: the runtime's inbox finds its id and ``AuthorityProcessor/refuse(resent:)`` answers
/// it `replayed_command`, or `stale_command` once outside the window, with a security event (the
/// inbox keeps ids at least an hour; the window is at most 30 minutes). Only a redelivery of the
/// same record gets the first answer again.
package struct AdminCommandVerifier: Sendable {
    /// Why a command is refused.
    package struct Refusal: Error, Sendable, Equatable {
        /// The rejection reason, e.g. `bad_signature`.
        package let reason: RejectionReason
        /// What was wrong, naming fields, never their values.
        package let detail: String
        /// The security event's severity.
        package let severity: SecurityEvent.Severity
        /// The key id the command named, when it had one.
        package let keyID: String?
    }

    static let unsigned = RejectionReason("unsigned_command")
    static let unknownKey = RejectionReason("unknown_key")
    static let badSignature = RejectionReason("bad_signature")
    static let stale = RejectionReason("stale_command")
    static let replayed = RejectionReason("replayed_command")

    let keys: OperatorKeys
    let windowSeconds: Int
    let now: @Sendable () -> Date

    /// A verifier for `keys`, with a window of `windowSeconds` either side of `now()`.
    package init(keys: OperatorKeys, windowSeconds: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.keys = keys
        self.windowSeconds = windowSeconds
        self.now = now
    }

    /// The command and the key that signed it; throws ``Refusal`` (or a schema violation).
    package func verify(_ message: StageMessage) throws -> (AdminCommand, keyID: String) {
        let command = try message.decode(AdminCommand.self)
        guard let keyID = command.keyID, let signature = command.signature else {
            throw Refusal(
                reason: Self.unsigned, detail: "key_id and signature are required", severity: .critical,
                keyID: command.keyID)
        }
        guard let publicKey = keys[keyID] else {
            throw Refusal(
                reason: Self.unknownKey, detail: "key_id names no configured operator key",
                severity: .critical, keyID: keyID)
        }
        guard OperatorSignature.verify(signature, fields: message.fields, publicKey: publicKey) else {
            throw Refusal(
                reason: Self.badSignature, detail: "signature does not verify under key_id",
                severity: .critical, keyID: keyID)
        }
        let age = now().timeIntervalSince(message.header.producedAt.date)
        guard abs(age) <= Double(windowSeconds) else {
            throw Refusal(
                reason: Self.stale,
                detail: "produced_at is more than \(windowSeconds) s in the \(age > 0 ? "past" : "future")",
                severity: .warning, keyID: keyID)
        }
        return (command, keyID)
    }
}
