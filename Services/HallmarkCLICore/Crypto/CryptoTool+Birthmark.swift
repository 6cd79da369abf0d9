import Foundation
import HallmarkCrypto

extension CryptoTool {
    /// `{master_hex, key_index, format?}` → `{key_hex}`; format `reference` (default) or `mobile`.
    static func bmDerive(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let master = try input.hex("master_hex"), index = try input.int("key_index")
        let name = try input.optionalString("format") ?? "reference"
        guard let format = BirthmarkKeys.Format(rawValue: name) else {
            throw CryptoToolError("invalid_argument", "format must be reference or mobile")
        }
        let key = try CryptoToolError.wrap { try BirthmarkKeys.derive(master: master, keyIndex: index, format: format) }
        return ["key_hex": Hex.encode(key)]
    }

    /// `{master_hex, <token in either format>}` → `{nuc_hex, table_id, key_index}`. The one
    /// master key stands for every table the token names. Failures use the BM-TOKEN reasons.
    static func bmOpenToken(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let master = try input.hex("master_hex")
        guard master.count == 32 else { throw CryptoToolError("invalid_key", "master key must be 32 bytes") }
        let token: BirthmarkToken
        do {
            token = try BirthmarkToken.parse(input.wholeData())
        } catch {
            throw CryptoToolError(BirthmarkTokenReason.malformed.rawValue, error.reason)
        }
        let masters = Dictionary(token.referencedTables.map { ($0, master) }, uniquingKeysWith: { a, _ in a })
        switch BirthmarkTokenValidator.open(token, masterKeys: masters) {
        case .success(let opened):
            return ["nuc_hex": Hex.encode(opened.nucHash), "table_id": opened.tableId, "key_index": opened.keyIndex]
        case .failure(let reason):
            throw CryptoToolError(reason.rawValue, "token did not open")
        }
    }

    /// `{leaves_hex, leaf_index?, old_size?}` → `{tree_size, root_hex, inclusion_proof?, consistency_proof?, old_root_hex?}`.
    /// Leaves are raw leaf bytes (hex); hashing follows RFC 6962.
    static func merkle(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        var hashes: [Data] = []
        for leaf in try input.stringArray("leaves_hex") {
            hashes.append(MerkleTree.leafHash(try CryptoToolError.wrap { try Hex.decode(leaf) }))
        }
        var out: [String: Any] = ["tree_size": hashes.count, "root_hex": Hex.encode(MerkleTree.root(leafHashes: hashes))]
        if let index = try input.optionalInt("leaf_index") {
            let proof = try CryptoToolError.wrap { try MerkleTree.inclusionProof(leafIndex: index, leafHashes: hashes) }
            out["leaf_index"] = index
            out["leaf_hash_hex"] = Hex.encode(hashes[index])
            out["inclusion_proof"] = proof.map { Hex.encode($0) }
        }
        if let oldSize = try input.optionalInt("old_size") {
            let proof = try CryptoToolError.wrap { try MerkleTree.consistencyProof(oldSize: oldSize, leafHashes: hashes) }
            out["old_size"] = oldSize
            out["old_root_hex"] = Hex.encode(MerkleTree.root(leafHashes: Array(hashes.prefix(oldSize))))
            out["consistency_proof"] = proof.map { Hex.encode($0) }
        }
        return out
    }
}
