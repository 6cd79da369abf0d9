import Foundation

/// The byte form of a message's outputs in the inbox: version 1, a count, then per output
/// the topic, partition, key and value, each length-prefixed (big-endian).
enum OutboxCodec {
    /// The version-1 record of `outputs`.
    static func encode(_ outputs: [StageOutput]) -> Data {
        var out = Data([1])
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian) { out.append(contentsOf: $0) } }
        func i32(_ v: Int32) { withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) } }
        u32(outputs.count)
        for o in outputs {
            u32(o.topic.utf8.count)
            out.append(contentsOf: o.topic.utf8)
            i32(o.partition ?? -1)
            if let key = o.key {
                i32(Int32(key.count))
                out.append(contentsOf: key)
            } else {
                i32(-1)
            }
            u32(o.value.count)
            out.append(contentsOf: o.value)
        }
        return out
    }

    /// The outputs `data` holds, or nil when it is not exactly one version-1 record.
    static func decode(_ data: Data) -> [StageOutput]? {
        let bytes = [UInt8](data)
        var i = 1
        guard bytes.first == 1 else { return nil }
        func u32() -> Int? {
            guard i + 4 <= bytes.count else { return nil }
            defer { i += 4 }
            return Int(bytes[i..<i + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        func i32() -> Int32? { u32().map { Int32(bitPattern: UInt32($0)) } }
        func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, i + n <= bytes.count else { return nil }
            defer { i += n }
            return Array(bytes[i..<i + n])
        }
        guard let count = u32() else { return nil }
        var outputs: [StageOutput] = []
        for _ in 0..<count {
            // -1 marks "no partition" and "no key"; anything below it, or a topic that is not
            // UTF-8, is a record this build did not write.
            guard let topicLength = u32(), let topicBytes = take(topicLength),
                let topic = String(validating: topicBytes, as: UTF8.self),
                let partition = i32(), partition >= -1, let keyLength = i32(), keyLength >= -1
            else { return nil }
            var key: [UInt8]?
            if keyLength >= 0 {
                guard let k = take(Int(keyLength)) else { return nil }
                key = k
            }
            guard let valueLength = u32(), let value = take(valueLength) else { return nil }
            outputs.append(
                StageOutput(
                    topic: topic, key: key, value: value,
                    partition: partition >= 0 ? partition : nil))
        }
        return i == bytes.count ? outputs : nil
    }
}
