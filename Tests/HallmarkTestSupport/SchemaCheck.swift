import Foundation

/// Validates produced messages against `proto-json/` with the shared validator.
public enum SchemaCheck {
    public static func validate(_ instance: Any, against name: String) throws {
        let validator = try JSONSchemaValidator.load(name)
        try validator.lint()
        try validator.validate(instance)
    }
}
