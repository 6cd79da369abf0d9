import Foundation
import HallmarkMessages

extension RequestCarrier {
    /// The body bytes. The carrier schemas already hold `body_b64` to canonical base64; a body
    /// that still does not decode is rejected as a schema violation.
    public func body() throws(StageRejection) -> Data {
        guard let data = Data(base64Encoded: bodyB64) else {
            throw StageRejection(.schemaViolation, "body_b64 is not base64")
        }
        return data
    }
}
