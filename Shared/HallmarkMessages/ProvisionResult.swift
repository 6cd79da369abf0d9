/// `hallmark.provision.result.v1`: the answer to a provisioning request. The table keys
/// travel only inside `sealed_provisioning` (PROV-1).
public struct ProvisionResult: MessageBody, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.provision.result.v1"

    /// `provisioned` or `rejected`.
    public enum Status: String, Codable, Sendable { case provisioned, rejected }
    /// Why a request was rejected.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case alreadyProvisioned = "already_provisioned"
        case malformed
        case nucInUse = "nuc_in_use"
        case noTables = "no_tables"
        /// The serial belongs to a camera whose data was erased; it keeps a tombstone so the
        /// serial is not provisioned again by accident.
        case erasedDevice = "erased_device"
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
    }
    public var deviceSerial: String?
    public var status: Status
    public var reason: Reason?
    public var tableAssignments: [Int]?
    public var sealedProvisioning: String?

    enum CodingKeys: String, CodingKey {
        case status, reason
        case deviceSerial = "device_serial"
        case tableAssignments = "table_assignments"
        case sealedProvisioning = "sealed_provisioning"
    }

    /// Creates a result.
    public init(
        deviceSerial: String?,
        status: Status, reason: Reason? = nil, tableAssignments: [Int]? = nil, sealedProvisioning: String? = nil
    ) {
        self.deviceSerial = deviceSerial
        self.status = status
        self.reason = reason
        self.tableAssignments = tableAssignments
        self.sealedProvisioning = sealedProvisioning
    }
}
