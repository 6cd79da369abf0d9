/// Writes one JSON object member by member, straight into bytes, for a message written for
/// every input (no dictionary, no key sort). The caller adds members in `JSONEncoder`'s
/// `.sortedKeys` order and leaves out nil ones, as `JSONEncoder` does, so the bytes equal
/// ``JSONCoding/encode(_:)``'s; each such writer has a test holding the two equal, and debug
/// builds check the order.
public struct JSONObjectWriter {
    private var out: [UInt8]
    private var empty = true
    #if DEBUG
        private var lastKey: [UInt8] = []
    #endif

    /// Starts an object.
    public init(capacity: Int = 384) {
        out = []
        out.reserveCapacity(capacity)
        out.append(UInt8(ascii: "{"))
    }

    /// A string member; nil leaves it out.
    public mutating func string(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        member(key)
        JSONWriter.writeString(value, into: &out)
    }

    /// A `true` or `false` member; nil leaves it out.
    public mutating func bool(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        member(key)
        out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    /// An unsigned integer member; nil leaves it out.
    public mutating func number(_ key: StaticString, _ value: UInt64?) {
        guard let value else { return }
        member(key)
        out.append(contentsOf: String(value).utf8)
    }

    /// A member holding any JSON value; nil leaves it out.
    public mutating func value(_ key: StaticString, _ value: JSONValue?) {
        guard let value else { return }
        member(key)
        JSONWriter.write(value, into: &out)
    }

    /// The finished object's bytes.
    public consuming func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }

    private mutating func member(_ key: StaticString) {
        let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        #if DEBUG
            assert(empty || lastKey.lexicographicallyPrecedes(name), "JSONObjectWriter: members out of sorted order")
            lastKey = Array(name)
        #endif
        if !empty { out.append(UInt8(ascii: ",")) }
        empty = false
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: name)
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
