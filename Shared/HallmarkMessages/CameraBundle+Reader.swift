import Foundation
import HallmarkCore

extension CameraBundle {
    /// Reads members as pydantic's lax mode does (the reference server's models). Errors name
    /// the member and the rule, never its value.
    struct Reader {
        let object: [String: JSONValue]
        var path = "$"

        /// Present and not `null`.
        func present(_ name: String) -> Bool {
            switch object[name] {
            case nil, .null?: false
            default: true
            }
        }

        private func field(_ name: String) -> String { "\(path).\(name)" }

        private func missing(_ name: String) -> Refusal {
            Refusal(.invalidField, "\(name) is required", field: field(name))
        }

        func string(_ name: String, default value: String? = nil) throws(Refusal) -> String {
            guard present(name) else {
                if let value { return value }
                throw missing(name)
            }
            guard let s = object[name]?.string else { throw Refusal(.invalidField, "\(name) is a string", field: field(name)) }
            return s
        }

        /// Hex in either case, written in lower case (the schema checks the digits).
        func hex(_ name: String) throws(Refusal) -> String { try string(name).lowercased() }

        func optionalHex(_ name: String) throws(Refusal) -> String? { present(name) ? try hex(name) : nil }

        func integer(_ name: String, default value: Int? = nil) throws(Refusal) -> Int {
            guard present(name) else {
                if let value { return value }
                throw missing(name)
            }
            guard let n = Self.laxInteger(object[name]!) else {
                throw Refusal(.invalidField, "\(name) is an integer", field: field(name))
            }
            return n
        }

        func integers(_ name: String) throws(Refusal) -> [Int] {
            guard present(name) else { throw missing(name) }
            guard let list = object[name]?.array else {
                throw Refusal(.invalidField, "\(name) is a list of integers", field: field(name))
            }
            var out: [Int] = []
            for (i, item) in list.enumerated() {
                guard let n = Self.laxInteger(item) else {
                    throw Refusal(.invalidField, "\(name) is a list of integers", field: "\(field(name))[\(i)]")
                }
                out.append(n)
            }
            return out
        }

        /// Unix seconds, at least 1.
        func timestamp() throws(Refusal) -> UInt64 {
            let n = try integer("timestamp")
            guard n >= 1 else {
                throw Refusal(.invalidField, "timestamp is Unix seconds after 1970", field: field("timestamp"))
            }
            return UInt64(n)
        }

        /// A JSON integer, an integral number (`5.0`) or a string of digits with an optional sign,
        /// within Int.
        static func laxInteger(_ value: JSONValue) -> Int? {
            switch value {
            case .number(let text):
                if let n = value.integer { return n }
                guard let d = Double(text), d.rounded() == d, abs(d) < 9.0e15 else { return nil }
                return Int(d)
            case .string(let text):
                let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
                guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return nil
                }
                return Int(text)
            default:
                return nil
            }
        }
    }
}
