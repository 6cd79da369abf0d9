/// What a zip upload may hold. Every limit counts what the reader sees, never what a header
/// claims: inflation stops at the first byte past a limit.
public struct ZipLimits: Sendable, Equatable {
    /// Entries in the central directory (folders included).
    public var maxEntries: Int
    /// Bytes inflated, all entries together (`HALLMARK_SIGNER_MAX_ZIP_BYTES`).
    public var maxInflatedBytes: Int
    /// Bytes of one entry's stored name, folders included.
    public var maxNameBytes: Int

    public init(maxEntries: Int = 256, maxInflatedBytes: Int = 64 << 20, maxNameBytes: Int = 255) {
        self.maxEntries = maxEntries
        self.maxInflatedBytes = maxInflatedBytes
        self.maxNameBytes = maxNameBytes
    }

    /// The most memory one upload can reserve within these limits: everything in one image
    /// file, which SIGN-FILES signs as base64 (4 bytes per 3). A ``ZipMemoryBudget`` smaller
    /// than this could never admit such an upload.
    public var largestReservation: Int {
        ZipUpload.base64Length(maxInflatedBytes) ?? .max
    }
}
