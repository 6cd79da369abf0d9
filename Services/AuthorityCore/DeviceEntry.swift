import HallmarkCrypto

/// A provisioned device as validation needs it (no secrets).
public struct DeviceEntry: Sendable, Hashable {
    /// Internal row id.
    public var id: Int64
    /// The camera's serial.
    public var serial: String
    /// The three assigned tables.
    public var assignedTables: Set<Int>
    /// Whether it is blacklisted.
    public var blacklisted: Bool

    /// Creates an entry.
    public init(id: Int64, serial: String, assignedTables: Set<Int>, blacklisted: Bool) {
        self.id = id
        self.serial = serial
        self.assignedTables = assignedTables
        self.blacklisted = blacklisted
    }

    /// The validator's view.
    public var record: BirthmarkDeviceRecord {
        BirthmarkDeviceRecord(assignedTables: assignedTables, blacklisted: blacklisted)
    }
}
