import HallmarkCore
import HallmarkCrypto

extension InvisoWireMessage {
    /// Reads a wire message from already-parsed JSON; nil unless every member is present in
    /// its plain form (the caller then decodes the bytes, which names the problem).
    init?(json: JSONValue?) {
        guard case .object(let m)? = json, m.count == 5, let version = m["version"]?.integer,
            let counter = m["counter"]?.unsignedInteger, let nonce = m["nonce"]?.string,
            let ciphertext = m["ciphertext"]?.string, let tag = m["tag"]?.string
        else { return nil }
        self.init(version: version, counter: counter, nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// The message as JSON, member for member what `JSONEncoder` writes.
    var json: JSONValue {
        .object([
            "version": .number(String(version)), "counter": .number(String(counter)), "nonce": .string(nonce),
            "ciphertext": .string(ciphertext), "tag": .string(tag),
        ])
    }
}
