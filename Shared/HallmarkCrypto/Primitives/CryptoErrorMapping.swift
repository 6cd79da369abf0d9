/// Runs a swift-crypto call and turns whatever it throws into a `HallmarkCryptoError`, so
/// our typed-throws API stays typed and no library error text (which could describe
/// inputs) leaks out.
@inline(__always)
func mapErrors<T>(
    _ code: HallmarkCryptoError.Code, _ reason: String,
    _ body: () throws -> T
) throws(HallmarkCryptoError) -> T {
    do {
        return try body()
    } catch let error as HallmarkCryptoError {
        throw error
    } catch {
        throw HallmarkCryptoError(code, reason)
    }
}
