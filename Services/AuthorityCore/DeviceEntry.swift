import HallmarkCrypto

/// A provisioned device as validation needs it (no secrets).
package struct DeviceEntry: Sendable, Hashable {
    /// Internal row id.
    package var id: Int64
    /// The camera's serial.
    package var serial: String
    /// The three assigned tables.
    package var assignedTables: Set<Int>
    /// Whether it is blacklisted.
    package var blacklisted: Bool

    /// Creates an entry.
    package init(id: Int64, serial: String, assignedTables: Set<Int>, blacklisted: Bool) {
        self.id = id
        self.serial = serial
        self.assignedTables = assignedTables
        self.blacklisted = blacklisted
    }

    /// The validator's view.
    package var record: BirthmarkDeviceRecord {
        BirthmarkDeviceRecord(assignedTables: assignedTables, blacklisted: blacklisted)
    }
}
