import Foundation
import HallmarkCore

extension Settings {
    /// A comma-separated list of request-carrier schema names (``RequestCarrier/schemas``): the
    /// schemas a stage takes on one input. An empty list or a name that is no carrier is refused.
    public func requestCarriers(_ name: String, default value: Set<String>) throws(ConfigurationError) -> Set<String> {
        let names = Set(list(name, default: Array(value)))
        guard !names.isEmpty, names.isSubset(of: RequestCarrier.schemas) else {
            throw ConfigurationError(
                variable: name, reason: "must list request-carrier schemas: \(RequestCarrier.schemas.sorted())")
        }
        return names
    }
}

extension Setting where Value == Set<String> {
    /// Request-carrier schema names (``RequestCarrier/schemas``), comma-separated.
    public static func requestCarriers(_ name: String, default value: Set<String>, doc: String) -> Setting {
        Setting(
            name, default: value, accepted: "request-carrier schemas: \(RequestCarrier.schemas.sorted())", doc: doc,
            show: { $0.sorted().joined(separator: ",") }
        ) { raw in
            let names = Set(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            return !names.isEmpty && names.isSubset(of: RequestCarrier.schemas) ? names : nil
        }
    }
}
