import Foundation
import HallmarkCore
import HallmarkMessages
import HTTPTypes

/// An answer the edge gives instead of a result: an HTTP status and DESIGN BM-EDGE's typed JSON
/// `{"error", "reason", "field"}`. `error` is a stable code, `reason` a sentence that never holds
/// the request's values (no secret, token or hash reaches a response, a log or a metric), and
/// `field` the JSON path of the member at fault when there is one.
package struct EdgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes.
    package enum Code: String, Sendable, CaseIterable {
        /// 400: the body is not JSON, or not a bundle the edge can read.
        case malformed
        /// 400: a member breaks the rules of the bundle it belongs to.
        case invalidField = "invalid_field"
        /// 404: no such receipt, image or route.
        case notFound = "not_found"
        /// 405
        case methodNotAllowed = "method_not_allowed"
        /// 408: the request did not arrive in time.
        case requestTimeout = "request_timeout"
        /// 413: the body is larger than a bundle can be.
        case tooLarge = "too_large"
        /// 431: a header is too large, or there are too many.
        case headersTooLarge = "headers_too_large"
        /// 401: the `/ops` data without its bearer token, or with another.
        case unauthorized
        /// 415: the body is not declared JSON.
        case unsupportedMediaType = "unsupported_media_type"
        /// 409: another edit's claim holds the final image.
        case alreadyClaimed = "already_claimed"
        /// 429: this client's rate limit.
        case rateLimited = "rate_limited"
        /// 503: the broker or the answers are unavailable.
        case unavailable

        /// The HTTP status of the code.
        package var status: HTTPResponse.Status {
            switch self {
            case .malformed, .invalidField: .badRequest
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .requestTimeout: .requestTimeout
            case .unauthorized: .unauthorized
            case .tooLarge: .contentTooLarge
            case .headersTooLarge: .requestHeaderFieldsTooLarge
            case .unsupportedMediaType: .unsupportedMediaType
            case .alreadyClaimed: .conflict
            case .rateLimited: .tooManyRequests
            case .unavailable: .serviceUnavailable
            }
        }
    }

    package let code: Code
    package let reason: String
    package let field: String?

    package init(_ code: Code, _ reason: String, field: String? = nil) {
        self.code = code
        self.reason = reason
        self.field = field
    }

    /// A body that is not a bundle: 400 with the bundle reader's code, reason and member.
    package init(_ refusal: CameraBundle.Refusal) {
        // Exhaustive, so a new kind of refusal is a compile error here, not a silent 400 code.
        let code: Code =
            switch refusal.code {
            case .malformed: .malformed
            case .invalidField: .invalidField
            }
        self.init(code, refusal.reason, field: refusal.field)
    }

    package var description: String { "\(code.rawValue): \(reason)" + (field.map { " (\($0))" } ?? "") }

    /// The response body.
    package var json: [UInt8] {
        var object: [String: JSONValue] = ["error": .string(code.rawValue), "reason": .string(reason)]
        if let field { object["field"] = .string(field) }
        return JSONWriter.write(.object(object))
    }
}
