/// What the witness answers an `add-checkpoint` request, as C2SP tlog-witness says: 200 with
/// the cosignature lines, or the status of the first check that failed.
package struct WitnessAnswer: Sendable, Hashable {
    /// Why a checkpoint was not cosigned, each with its HTTP status.
    package enum Refusal: String, Sendable, Hashable, CaseIterable {
        /// 400: the request is malformed, or its old size is above the checkpoint's.
        case badRequest = "bad_request"
        /// 403: no trusted signature of the log, or a trusted key's signature fails.
        case forbidden
        /// 404: the origin is not a log this witness follows.
        case unknownLog = "unknown_log"
        /// 409: the old size is not the size last cosigned (the body says which).
        case conflict
        /// 422: the proof does not verify, a proof came with old size 0, or the size is 0.
        case inconsistent
        /// 422: the same size as last cosigned with another root: a split view.
        case splitView = "split_view"

        /// The HTTP status.
        package var status: Int {
            switch self {
            case .badRequest: 400
            case .forbidden: 403
            case .unknownLog: 404
            case .conflict: 409
            case .inconsistent, .splitView: 422
            }
        }
    }

    /// The HTTP status.
    package var status: Int
    /// The body.
    package var body: String
    /// Its content type.
    package var contentType: String
    /// Why, when refused.
    package var refusal: Refusal?

    /// 200: the cosignature lines.
    package static func cosigned(_ lines: String) -> WitnessAnswer {
        WitnessAnswer(status: 200, body: lines, contentType: "text/plain; charset=utf-8", refusal: nil)
    }

    /// A refusal; a conflict carries the size last cosigned.
    package static func refused(_ refusal: Refusal, _ reason: String, size: UInt64? = nil) -> WitnessAnswer {
        if refusal == .conflict, let size {
            return WitnessAnswer(status: 409, body: "\(size)\n", contentType: "text/x.tlog.size", refusal: refusal)
        }
        return WitnessAnswer(
            status: refusal.status, body: reason + "\n", contentType: "text/plain; charset=utf-8", refusal: refusal)
    }
}
