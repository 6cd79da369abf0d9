extension Submission {
    /// One image hash: `{image_hash, modification_level, parent_image_hash}` (hex, lower case).
    public struct ImageHash: Codable, Sendable, Hashable {
        /// SHA-256 of the image.
        public var imageHash: String
        /// 0 raw, 1 processed, 2+ further edits.
        public var modificationLevel: Int
        /// The hash it was derived from; nil (absent or null) for a raw capture.
        public var parentImageHash: String?

        public init(imageHash: String, modificationLevel: Int, parentImageHash: String? = nil) {
            self.imageHash = imageHash
            self.modificationLevel = modificationLevel
            self.parentImageHash = parentImageHash
        }

        enum CodingKeys: String, CodingKey {
            case imageHash = "image_hash"
            case modificationLevel = "modification_level"
            case parentImageHash = "parent_image_hash"
        }
    }

    /// `CameraSubmission`'s `manufacturer_cert`: which authority validates the token.
    public struct ManufacturerCert: Codable, Sendable, Hashable {
        /// Compared with the configured authority id (`unknown_authority` otherwise).
        public var authorityID: String
        /// The reference server's validation URL; informational, never called.
        public var validationEndpoint: String

        public init(authorityID: String, validationEndpoint: String) {
            self.authorityID = authorityID
            self.validationEndpoint = validationEndpoint
        }

        enum CodingKeys: String, CodingKey {
            case authorityID = "authority_id"
            case validationEndpoint = "validation_endpoint"
        }
    }

    /// The Raspberry Pi camera's `isp_validation` (variance from expected). Accepted so the
    /// camera can submit unchanged; never stored or forwarded.
    public struct ISPValidation: Codable, Sendable, Hashable {
        public var varianceMetric: Double?
        public var ispParameters: ISPParameters?
        public var sampleCount: Int?
        public var shootingMode: String?
        public var metricVersion: String?

        public init(
            varianceMetric: Double? = nil, ispParameters: ISPParameters? = nil, sampleCount: Int? = nil,
            shootingMode: String? = nil, metricVersion: String? = nil
        ) {
            self.varianceMetric = varianceMetric
            self.ispParameters = ispParameters
            self.sampleCount = sampleCount
            self.shootingMode = shootingMode
            self.metricVersion = metricVersion
        }

        enum CodingKeys: String, CodingKey {
            case varianceMetric = "variance_metric"
            case ispParameters = "isp_parameters"
            case sampleCount = "sample_count"
            case shootingMode = "shooting_mode"
            case metricVersion = "metric_version"
        }
    }

    /// The ISP parameters the camera declares.
    public struct ISPParameters: Codable, Sendable, Hashable {
        public var whiteBalance: WhiteBalance?
        public var exposureAdjustment: Double?
        public var sharpening: Double?
        public var noiseReduction: Double?

        public init(
            whiteBalance: WhiteBalance? = nil, exposureAdjustment: Double? = nil, sharpening: Double? = nil,
            noiseReduction: Double? = nil
        ) {
            self.whiteBalance = whiteBalance
            self.exposureAdjustment = exposureAdjustment
            self.sharpening = sharpening
            self.noiseReduction = noiseReduction
        }

        enum CodingKeys: String, CodingKey {
            case whiteBalance = "white_balance"
            case exposureAdjustment = "exposure_adjustment"
            case sharpening
            case noiseReduction = "noise_reduction"
        }
    }

    /// White-balance gains.
    public struct WhiteBalance: Codable, Sendable, Hashable {
        public var redGain: Double?
        public var blueGain: Double?

        public init(redGain: Double? = nil, blueGain: Double? = nil) {
            self.redGain = redGain
            self.blueGain = blueGain
        }

        enum CodingKeys: String, CodingKey {
            case redGain = "red_gain"
            case blueGain = "blue_gain"
        }
    }
}
