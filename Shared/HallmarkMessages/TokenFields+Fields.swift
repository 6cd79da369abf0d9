import HallmarkCore
import HallmarkCrypto

extension TokenFields {
    /// Reads the token members from the members intake already parsed and checked against
    /// their schema, without the `Decoder` machinery (which cost the authority a fifth as much
    /// as opening the token). Nil when a member is not in the plain form this reader takes (a
    /// null, an integer written `1.0`, both layouts at once); the caller then decodes, which
    /// accepts and refuses exactly as before.
    public init?(fields f: [String: JSONValue]) {
        switch (f["camera_token"], f["encrypted_nuc_token"], f["table_references"], f["key_indices"]) {
        case (.object(let t)?, nil, nil, nil):
            guard let ciphertext = t["ciphertext"]?.string, let authTag = t["auth_tag"]?.string,
                let nonce = t["nonce"]?.string, let tableId = t["table_id"]?.integer,
                let keyIndex = t["key_index"]?.integer
            else { return nil }
            self.init(
                cameraToken: BirthmarkCameraToken(
                    ciphertext: ciphertext, authTag: authTag, nonce: nonce, tableId: tableId, keyIndex: keyIndex))
        case (nil, .string(let sealed)?, .array(let tables)?, .array(let indices)?):
            guard let tables = Self.integers(tables), let indices = Self.integers(indices) else { return nil }
            self.init(encryptedNucToken: sealed, tableReferences: tables, keyIndices: indices)
        default:
            return nil
        }
    }

    private static func integers(_ values: [JSONValue]) -> [Int]? {
        var out: [Int] = []
        out.reserveCapacity(values.count)
        for value in values {
            guard let n = value.integer else { return nil }
            out.append(n)
        }
        return out
    }
}
