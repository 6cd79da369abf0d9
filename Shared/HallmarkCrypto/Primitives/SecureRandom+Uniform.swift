import Foundation

extension SecureRandom {
    /// A uniform integer in `0..<upperBound` (rejection sampling, no modulo bias).
    public static func uniform(below upperBound: Int) throws(HallmarkCryptoError) -> Int {
        guard upperBound > 0 else { throw HallmarkCryptoError(.invalidArgument, "upper bound must be positive") }
        let bound = UInt64(upperBound)
        let limit = UInt64.max - UInt64.max % bound  // accept values below a multiple of bound
        while true {
            let value = try bytes(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            if value < limit { return Int(value % bound) }
        }
    }
}
