import HallmarkCrypto

/// A `hallmark crypto` failure: printed as `{"error": code, "message": …}`.
package struct CryptoToolError: Error, Sendable, Equatable {
    /// Stable code (HallmarkCrypto codes, or `malformed_json`, `unknown_command`, token reasons).
    package let code: String
    /// Human explanation without secret material.
    package let message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: HallmarkCryptoError) { self.init(error.code.rawValue, error.reason) }

    static func missing(_ key: String) -> CryptoToolError { CryptoToolError("malformed_json", "missing field \(key)") }

    static func wrongType(_ key: String, _ expected: String) -> CryptoToolError {
        CryptoToolError("malformed_json", "field \(key) must be \(expected)")
    }

    /// Runs library code, turning its error into a tool error. Tool errors pass through.
    static func wrap<T>(_ body: () throws -> T) throws(CryptoToolError) -> T {
        do {
            return try body()
        } catch let error as CryptoToolError {
            throw error
        } catch let error as HallmarkCryptoError {
            throw CryptoToolError(error)
        } catch {
            throw CryptoToolError("internal", "unexpected failure")
        }
    }
}
