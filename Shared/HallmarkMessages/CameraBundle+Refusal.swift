extension CameraBundle {
    /// Why a body is not a bundle: a stable code, a reason that never holds the body's values,
    /// and the JSON path of the member at fault (as the camera wrote it) when there is one. The
    /// edge answers it as a 400 with DESIGN BM-EDGE's typed JSON.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package enum Code: String, Sendable, CaseIterable {
            /// Not JSON, or not a bundle at all.
            case malformed
            /// A member breaks the rules of the bundle it belongs to.
            case invalidField = "invalid_field"
        }

        package let code: Code
        package let reason: String
        package let field: String?

        package init(_ code: Code, _ reason: String, field: String? = nil) {
            self.code = code
            self.reason = reason
            self.field = field
        }

        package var description: String { "\(code.rawValue): \(reason)" + (field.map { " (\($0))" } ?? "") }
    }
}
