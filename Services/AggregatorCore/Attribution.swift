import Foundation
import HallmarkCrypto
import HallmarkMessages

/// What a camera said of a capture beside its hashes (DESIGN BM-PROVENANCE): the SHA-256 of
/// its location (`gps_hash`) and of its owner's name and salt (`owner_hash`). Kept with each
/// hash the submission logged, in the leaf's row but never in the leaf: the 73-byte record and
/// its proofs stay as they are, so nothing here is covered by them.
package struct Attribution: Sendable, Hashable {
    /// 32 bytes each, or nil when the camera sent none.
    package let gpsHash: Data?
    package let ownerHash: Data?

    package static let none = Attribution(gpsHash: nil, ownerHash: nil)

    package init(gpsHash: Data?, ownerHash: Data?) {
        self.gpsHash = gpsHash
        self.ownerHash = ownerHash
    }

    /// A submission's, from its hex (its schema held it to 64 hex digits).
    package init(of submission: Submission) throws {
        self.init(
            gpsHash: try submission.gpsHash.map { try Hex.decode($0, length: 32) },
            ownerHash: try submission.ownerHash.map { try Hex.decode($0, length: 32) })
    }

    package var isEmpty: Bool { gpsHash == nil && ownerHash == nil }

    /// As a verification answer carries it; nil when there is none.
    package var answer: LogVerifyResult.Attribution? {
        isEmpty ? nil : .init(gpsHash: gpsHash.map { Hex.encode($0) }, ownerHash: ownerHash.map { Hex.encode($0) })
    }
}
