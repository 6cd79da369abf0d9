import Foundation
import HallmarkCore
import HallmarkCrypto

extension Submission {
    /// The Kafka key that keeps one capture's submissions in order: the hex SHA-256 of its
    /// token's nonce and ciphertext (nil without a readable token). A raw bundle and the
    /// processed bundle sent after it with the same token (DESIGN §2) then land on one partition
    /// and are read in the order sent; keyed apart, the processed one may be read first, when its
    /// parent is neither under its token nor in the log (`invalid_provenance`). The key says
    /// nothing the body does not: the token travels in it.
    public var captureKey: [UInt8]? {
        if let cameraCert {
            // A certificate bundle is one capture: keyed by its certificate and capture time,
            // hashed (the key is in no log, but the certificate stays in the body alone).
            let fields = [Self.captureDomain, Data(cameraCert.utf8), Data(String(timestamp).utf8)]
            return Array(Hex.encode(SHA256Hash.digest(parts: fields)).utf8)
        }
        guard let parts = try? token?.sealedParts() else { return nil }
        // Hashed in place, through the non-generic entry: the generic digest of a joined copy,
        // unspecialized from here, was a thirtieth of the edge's CPU per submission.
        return Array(Hex.encode(SHA256Hash.digest(parts: [Self.captureDomain, parts.nonce, parts.ciphertext])).utf8)
    }

    /// What the capture key's hash begins with.
    private static let captureDomain = Data("hallmark-capture-v1".utf8)
}
