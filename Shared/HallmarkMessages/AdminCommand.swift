import Foundation
import HallmarkCore
import HallmarkCrypto

/// `hallmark.authority.admin.v1`: an operator's command, signed with an operator's Ed25519 key.
///
/// What is signed: the command as a JSON object without its `signature` member — every other
/// member, so `schema`, `id`, `produced_at`, `command`, its arguments (`device_serial`,
/// `table_id`, `reason`), `key_id` and any `correlation_id`/`reply_to` — written canonically:
/// sorted keys (byte order), no whitespace, strings with only `"`, `\` and control characters
/// escaped, numbers as written (``JSONWriter``, the bytes ``JSONCoding`` writes for the same
/// message). `signature` is b64 of the 64-byte Ed25519 signature of those bytes under the key
/// `key_id` names. The authority rebuilds the bytes from the members it received, so a member
/// added, removed or changed after signing breaks the signature.
public struct AdminCommand: MessageBody, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.authority.admin.v1"

    /// What to do.
    public enum Action: String, Codable, Sendable, CaseIterable {
        /// Blacklist `device_serial` (with `reason`).
        case blacklist
        /// Lift a blacklisting of `device_serial` (with `reason`).
        case unblacklist
        /// Retire `table_id`: no new assignments; it still validates.
        case retireTable = "retire_table"
        /// Re-seal every row under the current KEK now, in the background.
        case rotateKEK = "rotate_kek"
    }

    public var command: Action
    public var deviceSerial: String?
    public var tableId: Int?
    public var reason: String?
    /// The operator key that signed the command (an id from the authority's operator keys).
    public var keyID: String?
    /// b64 of the Ed25519 signature (``OperatorSignature``).
    public var signature: String?

    enum CodingKeys: String, CodingKey {
        case command, reason, signature
        case deviceSerial = "device_serial"
        case tableId = "table_id"
        case keyID = "key_id"
    }

    /// Creates an unsigned command (see ``Message/signed(keyID:seed:)``).
    public init(
        command: Action, deviceSerial: String? = nil, tableId: Int? = nil,
        reason: String? = nil
    ) {
        self.command = command
        self.deviceSerial = deviceSerial
        self.tableId = tableId
        self.reason = reason
    }
}
