import HallmarkCore
import HallmarkCrypto

extension Submission {
    /// The body as ``JSONCoding/value(of:)`` gives it (`SubmissionJSONValueTests` holds the two
    /// equal for every shape), built member by member: the edge writes one for every camera's
    /// POST, and the generic encoder was a quarter of that work. Absent members are left out,
    /// as the encoder leaves out nil ones.
    /// - Throws: what ``JSONCoding/value(of:)`` throws for `isp_validation`, the one member
    ///   with floating-point numbers, which goes through it.
    public func jsonValue() throws(JSONCodingError) -> JSONValue {
        var m: [String: JSONValue] = [:]
        m.reserveCapacity(8)
        m["timestamp"] = .number(String(timestamp))
        if let submissionType { m["submission_type"] = .string(submissionType) }
        if let imageHashes { m["image_hashes"] = .array(imageHashes.map(\.jsonValue)) }
        if let imageHash { m["image_hash"] = .string(imageHash) }
        if let modificationLevel { m["modification_level"] = .number(String(modificationLevel)) }
        if let parentImageHash { m["parent_image_hash"] = .string(parentImageHash) }
        if let cameraToken { m["camera_token"] = Self.value(of: cameraToken) }
        if let encryptedNucToken { m["encrypted_nuc_token"] = .string(encryptedNucToken) }
        if let tableReferences { m["table_references"] = .array(tableReferences.map { .number(String($0)) }) }
        if let keyIndices { m["key_indices"] = .array(keyIndices.map { .number(String($0)) }) }
        if let manufacturerCert {
            m["manufacturer_cert"] = .object([
                "authority_id": .string(manufacturerCert.authorityID),
                "validation_endpoint": .string(manufacturerCert.validationEndpoint),
            ])
        }
        if let gpsHash { m["gps_hash"] = .string(gpsHash) }
        if let ownerHash { m["owner_hash"] = .string(ownerHash) }
        if let deviceSignature { m["device_signature"] = .string(deviceSignature) }
        if let ispValidation { m["isp_validation"] = try JSONCoding.value(of: ispValidation) }
        if let cameraCert { m["camera_cert"] = .string(cameraCert) }
        if let bundleSignature { m["bundle_signature"] = .string(bundleSignature) }
        return .object(m)
    }

    private static func value(of token: BirthmarkCameraToken) -> JSONValue {
        .object([
            "ciphertext": .string(token.ciphertext), "auth_tag": .string(token.authTag), "nonce": .string(token.nonce),
            "table_id": .number(String(token.tableId)), "key_index": .number(String(token.keyIndex)),
        ])
    }
}

extension Submission.ImageHash {
    /// The entry as ``JSONCoding/value(of:)`` gives it.
    var jsonValue: JSONValue {
        var m: [String: JSONValue] = [
            "image_hash": .string(imageHash), "modification_level": .number(String(modificationLevel)),
        ]
        if let parentImageHash { m["parent_image_hash"] = .string(parentImageHash) }
        return .object(m)
    }
}
