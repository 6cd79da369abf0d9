import HallmarkCrypto

/// `hallmark.submission.v1`: a Birthmark camera's authentication bundle
/// (`birthmark.submissions`), in one of the four bodies DESIGN §2 and BM-CERT accept as cameras
/// send them (see ``Shape``). Only the token, or a certificate's sealed handle, ever goes on to
/// the authority; `device_signature` and `isp_validation` are read and dropped.
public struct Submission: MessageBody, Hashable {
    public static let schemaName = "hallmark.submission.v1"

    /// The four accepted bodies.
    public enum Shape: String, Sendable, CaseIterable {
        /// Hallmark's own: `image_hashes`, a token in any format, optional `gps_hash`/`owner_hash`.
        case hallmark
        /// The reference submission server's `CameraSubmission`.
        case cameraSubmission
        /// The Raspberry Pi client's flat bundle.
        case flatBundle
        /// A certificate bundle (DESIGN BM-CERT): one hash, the device certificate and the
        /// bundle's signature, from the Raspberry Pi in certificate mode and the iOS app.
        case certificateBundle
    }

    /// `camera` in a `CameraSubmission`.
    public var submissionType: String?
    /// 1–4 hashes (Hallmark's body and `CameraSubmission`).
    public var imageHashes: [ImageHash]?
    /// The flat bundle's one hash, its level and parent.
    public var imageHash: String?
    public var modificationLevel: Int?
    public var parentImageHash: String?
    /// The reference-format token.
    public var cameraToken: BirthmarkCameraToken?
    /// The mobile-app (92 bytes) or packed reference (60 bytes) token.
    public var encryptedNucToken: String?
    public var tableReferences: [Int]?
    public var keyIndices: [Int]?
    /// `CameraSubmission`'s manufacturer certificate.
    public var manufacturerCert: ManufacturerCert?
    /// Capture time, Unix seconds.
    public var timestamp: UInt64
    public var gpsHash: String?
    public var ownerHash: String?
    /// The flat bundle's device signature, base64: never stored or forwarded.
    public var deviceSignature: String?
    /// The flat bundle's ISP validation data: never stored or forwarded.
    public var ispValidation: ISPValidation?
    /// A certificate bundle's device certificate, as sent (base64 of DER or PEM): checked by
    /// the aggregator, never stored, logged or published further.
    public var cameraCert: String?
    /// A certificate bundle's signature, base64.
    public var bundleSignature: String?

    /// Hallmark's own body: hashes and a token in either field layout.
    public init(
        imageHashes: [ImageHash], token: BirthmarkToken, timestamp: UInt64,
        gpsHash: String? = nil, ownerHash: String? = nil
    ) {
        self.imageHashes = imageHashes
        self.timestamp = timestamp
        self.gpsHash = gpsHash
        self.ownerHash = ownerHash
        tokenFields = TokenFields(token)
    }

    /// The reference submission server's `CameraSubmission`.
    public init(
        cameraSubmission imageHashes: [ImageHash], cameraToken: BirthmarkCameraToken,
        manufacturerCert: ManufacturerCert, timestamp: UInt64
    ) {
        submissionType = "camera"
        self.imageHashes = imageHashes
        self.cameraToken = cameraToken
        self.manufacturerCert = manufacturerCert
        self.timestamp = timestamp
    }

    /// The Raspberry Pi client's flat bundle (`packed` holds the 60-byte packed token).
    public init(
        flatBundle imageHash: ImageHash, packed: BirthmarkMobileToken,
        timestamp: UInt64, gpsHash: String? = nil, ownerHash: String? = nil, deviceSignature: String? = nil,
        ispValidation: ISPValidation? = nil
    ) {
        self.imageHash = imageHash.imageHash
        modificationLevel = imageHash.modificationLevel
        parentImageHash = imageHash.parentImageHash
        self.timestamp = timestamp
        self.gpsHash = gpsHash
        self.ownerHash = ownerHash
        self.deviceSignature = deviceSignature
        self.ispValidation = ispValidation
        tokenFields = TokenFields(.mobile(packed))
    }

    /// A certificate bundle (DESIGN BM-CERT).
    public init(
        certificateBundle imageHash: String, cameraCert: String, bundleSignature: String, timestamp: UInt64,
        gpsHash: String? = nil, ownerHash: String? = nil, ispValidation: ISPValidation? = nil
    ) {
        self.imageHash = imageHash
        self.cameraCert = cameraCert
        self.bundleSignature = bundleSignature
        self.timestamp = timestamp
        self.gpsHash = gpsHash
        self.ownerHash = ownerHash
        self.ispValidation = ispValidation
    }

    /// Which body this is (the schema allows exactly one).
    public var shape: Shape {
        if cameraCert != nil { return .certificateBundle }
        if imageHash != nil { return .flatBundle }
        return submissionType != nil || manufacturerCert != nil ? .cameraSubmission : .hallmark
    }

    /// The image hashes in the submission's order, whatever the body.
    public var entries: [ImageHash] {
        if let imageHash {
            return [ImageHash(imageHash: imageHash, modificationLevel: modificationLevel ?? 0, parentImageHash: parentImageHash)]
        }
        return imageHashes ?? []
    }

    /// The token, when exactly one layout is complete (the 60-byte packed format travels in the
    /// mobile layout; the authority tells the two apart by length).
    public var token: BirthmarkToken? { tokenFields.token }

    /// The token's members, in either layout.
    public var tokenFields: TokenFields {
        get {
            TokenFields(
                cameraToken: cameraToken, encryptedNucToken: encryptedNucToken, tableReferences: tableReferences,
                keyIndices: keyIndices)
        }
        set {
            (cameraToken, encryptedNucToken, tableReferences, keyIndices) =
                (newValue.cameraToken, newValue.encryptedNucToken, newValue.tableReferences, newValue.keyIndices)
        }
    }

    enum CodingKeys: String, CodingKey {
        case timestamp
        case submissionType = "submission_type"
        case imageHashes = "image_hashes"
        case imageHash = "image_hash"
        case modificationLevel = "modification_level"
        case parentImageHash = "parent_image_hash"
        case cameraToken = "camera_token"
        case encryptedNucToken = "encrypted_nuc_token"
        case tableReferences = "table_references"
        case keyIndices = "key_indices"
        case manufacturerCert = "manufacturer_cert"
        case gpsHash = "gps_hash"
        case ownerHash = "owner_hash"
        case deviceSignature = "device_signature"
        case ispValidation = "isp_validation"
        case cameraCert = "camera_cert"
        case bundleSignature = "bundle_signature"
    }
}
