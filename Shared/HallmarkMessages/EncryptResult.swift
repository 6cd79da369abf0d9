/// `hallmark.encrypt.result.v1`: the gateway's answer to an encrypt request, a request carrier
/// ready for the signer. `encrypted` says whether ENC-1 was applied; a request that passed
/// through as it came says why (``PassthroughReason``), so a plaintext request is never taken
/// for an encrypted one.
public struct EncryptResult: RejectableResult, Hashable {
    public static let schemaName = "hallmark.encrypt.result.v1"

    /// Why an encrypt request was refused (the rejected form's `reason`).
    public enum RejectionReason: String, CarrierRejectionReason {
        case malformed, oversized
        /// A multipart body that cannot be split into its parts.
        case malformedMultipart = "malformed_multipart"
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
        /// The request was itself a rejected result; `upstream_reason` carries its cause.
        case upstreamRejected = "upstream_rejected"
    }

    /// What `Content-Type` made of an encrypted request.
    public enum RequestType: String, Codable, Sendable, CaseIterable {
        /// The whole JSON body.
        case json
        /// The whole ZIP file.
        case zip
        /// The `partner_params` and `metadata` fields of a multipart body.
        case multipart
    }

    /// The policy decision that let a request through unencrypted.
    public enum PassthroughReason: String, Codable, Sendable, CaseIterable {
        case encryptionDisabled = "encryption_disabled"
        case excludedPath = "excluded_path"
        /// `SmileID-Skip-Encryption` honoured.
        case skipHeader = "skip_header"
        /// An S3 upload while S3 encryption is off.
        case s3Upload = "s3_upload"
        case multipartMetadataDisabled = "multipart_metadata_disabled"
        /// A multipart body with neither `partner_params` nor `metadata`.
        case noFieldsToEncrypt = "no_fields_to_encrypt"
        /// A `Content-Type` that is none of JSON, ZIP and multipart.
        case unsupportedContentType = "unsupported_content_type"
    }

    /// What happened to the request.
    public enum Decision: Hashable, Sendable {
        case encrypted(RequestType)
        case passedThrough(PassthroughReason)
    }

    public var method: String?
    public var path: String?
    /// The request's headers, with the ENC-1 headers added when encrypted.
    public var headers: [String: String]
    /// The envelope (encrypted) or the body as it came.
    public var bodyB64: String
    public var encrypted: Bool
    /// Set when `encrypted`.
    public var requestType: RequestType?
    /// Set when not `encrypted`.
    public var passthroughReason: PassthroughReason?

    public init(
        decision: Decision,
        headers: [String: String], bodyB64: String, method: String? = nil, path: String? = nil
    ) {
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
        switch decision {
        case .encrypted(let type): (encrypted, requestType, passthroughReason) = (true, type, nil)
        case .passedThrough(let reason): (encrypted, requestType, passthroughReason) = (false, nil, reason)
        }
    }

    /// The decision, when the fields hold a consistent one.
    public var decision: Decision? {
        switch (encrypted, requestType, passthroughReason) {
        case (true, let type?, nil): .encrypted(type)
        case (false, nil, let reason?): .passedThrough(reason)
        default: nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case method, path, headers, encrypted
        case bodyB64 = "body_b64"
        case requestType = "request_type"
        case passthroughReason = "passthrough_reason"
    }
}
