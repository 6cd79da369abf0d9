import Foundation

extension BirthmarkKeys {
    /// Tables per camera.
    public static let tablesPerCamera = 3

    /// A fresh 32-byte key-table master key.
    public static func newMasterKey() throws(HallmarkCryptoError) -> Data {
        try SecureRandom.bytes(32)
    }

    /// `tablesPerCamera` distinct table ids drawn uniformly from `0..<tableCount`, sorted.
    public static func randomTableAssignment(tableCount: Int = defaultTableCount) throws(HallmarkCryptoError) -> [Int] {
        guard tableCount >= tablesPerCamera else {
            throw HallmarkCryptoError(.invalidArgument, "need at least \(tablesPerCamera) key tables")
        }
        var chosen = Set<Int>()
        while chosen.count < tablesPerCamera { chosen.insert(try SecureRandom.uniform(below: tableCount)) }
        return chosen.sorted()
    }

    /// A uniform key index in 0...999, for the camera side.
    public static func randomKeyIndex() throws(HallmarkCryptoError) -> Int {
        try SecureRandom.uniform(below: keyIndices.count)
    }
}
