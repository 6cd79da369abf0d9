/// `hallmark.authority.admin.v1`: an operator's command.
public struct AdminCommand: HallmarkMessage, Hashable {
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

    public var schema = AdminCommand.schemaName
    public var id: String
    public var producedAt: String
    public var command: Action
    public var deviceSerial: String?
    public var tableId: Int?
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case schema, id, command, reason
        case producedAt = "produced_at"
        case deviceSerial = "device_serial"
        case tableId = "table_id"
    }

    /// Creates a command.
    public init(id: String, producedAt: String, command: Action, deviceSerial: String? = nil, tableId: Int? = nil,
                reason: String? = nil) {
        self.id = id
        self.producedAt = producedAt
        self.command = command
        self.deviceSerial = deviceSerial
        self.tableId = tableId
        self.reason = reason
    }
}
