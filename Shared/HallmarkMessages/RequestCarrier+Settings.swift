import Foundation
import HallmarkCore

extension Setting where Value == Set<String> {
    /// Request-carrier schema names (``RequestCarrier/schemas``), comma-separated: the schemas
    /// a stage takes on one input. An empty list or a name that is no carrier is refused.
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
