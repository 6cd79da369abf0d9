/// Writes a ``JSONValue`` exactly as ``JSONCoding/encode(_:)`` writes the same message
/// (sorted keys, `/` unescaped, no whitespace), without `JSONEncoder`'s per-message cost:
/// for the hottest outputs (a verdict per validation).
public enum JSONWriter {
    /// The bytes of `value`.
    public static func write(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            writeArray(elements, into: &out) { e, out in write(e, into: &out) }
        case .object(let members):
            writeObject(members.keys.sorted(by: precedes), into: &out, key: { $0 }) { key, out in write(members[key]!, into: &out)
            }
        }
    }

    /// `JSONEncoder`'s `.sortedKeys` order: member names by their UTF-8 bytes.
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// Writes an object of `members`, already in ``precedes(_:_:)`` order.
    static func writeObject<Member>(
        _ members: some Sequence<Member>, into out: inout [UInt8], key: (Member) -> String,
        value: (Member, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for member in members {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key(member), into: &out)
            out.append(UInt8(ascii: ":"))
            value(member, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Writes an array of `elements`.
    static func writeArray<Element>(
        _ elements: some Sequence<Element>, into out: inout [UInt8],
        element: (Element, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "["))
        var first = true
        for e in elements {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            element(e, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            // A large string (a body) gets its room at once, not by doubling copies.
            if bytes.count > 4096, out.capacity - out.count < bytes.count + 2 {
                out.reserveCapacity(Swift.max(out.capacity * 2, out.count + bytes.count + 2))
            }
            out.append(UInt8(ascii: "\""))
            // Runs of bytes that need no escape are copied at once.
            var start = 0
            while true {
                let i = JSONStringScan.firstSpecial(in: bytes, from: start)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                guard i < bytes.count else { break }
                escape(bytes[i], into: &out)
                start = i + 1
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func escape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
