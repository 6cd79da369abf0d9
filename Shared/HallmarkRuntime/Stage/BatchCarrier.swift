import HallmarkCore
import HallmarkKafka
import HallmarkMessages

/// Batch carriers (DESIGN §2): many units of one kind in one Kafka message on the
/// high-volume hops between Hallmark's own services, because a broker charges per request and
/// per message far more than per byte. A carrier is an envelope of its own with an `items`
/// array; each item is a whole message with its own `id`, held to its own schema and answered
/// on its own.
///
/// A stage reads a carrier it consumed with ``items(of:itemSchema:)`` and writes carriers with
/// ``outputs(topic:key:items:maxBytes:id:header:)``. Its runtime knows nothing of carriers: the
/// carrier is the unit of consuming, offsets and redelivery, and a redelivered carrier gets
/// its first answers again because each item's answer derives from the item's id.
public enum BatchCarrier {
    /// One item of a carrier, read as a message of its own.
    public struct Item: Sendable {
        /// The item as a message: its own envelope and members, the carrier's Kafka message
        /// and reply allowlist.
        public let message: StageMessage
        /// Why the item breaks its own schema (or its envelope); nil when it is valid.
        public let violation: String?
    }

    /// The items of `carrier` whose `id` can be read, in order, each checked against the
    /// schema it names (which must be `itemSchema`), but for the members the carrier's schema
    /// checked in every item (``MessageSchemas/carriedItemSchema(_:)``). A carrier that passed
    /// its own schema has a readable id in every item; one being answered for breaking it may
    /// not, and its items without one are left out (the carrier's rejected record covers
    /// them). Such a carrier's items are answered as a whole, whatever their violations say.
    public static func items(of carrier: StageMessage, itemSchema: String) -> [Item] {
        items(of: carrier, itemSchemas: [itemSchema])
    }

    /// The items of `carrier`, as ``items(of:itemSchema:)`` reads them, for a carrier whose
    /// items may be of any of `itemSchemas` (the first names an item whose envelope breaks).
    public static func items(of carrier: StageMessage, itemSchemas: [String]) -> [Item] {
        guard let members = carrier.fields["items"]?.array, let first = itemSchemas.first else { return [] }
        // Each item as its own schema says, but for what the carrier's schema checked in it.
        let schemas = Dictionary(uniqueKeysWithValues: itemSchemas.map { ($0, MessageSchemas.carriedItemSchema($0)) })
        return members.compactMap { member -> Item? in
            guard case .object(let fields) = member else { return nil }
            let header: EnvelopeHeader, violation: String?
            do throws(EnvelopeError) {
                header = try EnvelopeHeader.read(members: fields)
                if let schema = schemas[header.schema] {
                    violation = schema?.validate(member)?.description
                } else {
                    violation = "an item's schema is not \(itemSchemas.joined(separator: " or "))"
                }
            } catch {
                guard let id = fields["id"]?.string.flatMap(MessageID.init) else { return nil }
                // Answered without the members that broke its envelope (never carried on).
                header = EnvelopeHeader(
                    schema: first, id: id,
                    producedAt: fields["produced_at"]?.string.flatMap(Timestamp.init) ?? .now())
                violation = error.reason
            }
            return Item(
                message: StageMessage(
                    header: header, kafka: carrier.kafka, fields: fields, replyTopics: carrier.replyTopics),
                violation: violation)
        }
    }

    /// Carriers holding `items` (each the bytes of one whole message, as the single-message
    /// schema writes it), in order, as few as fit in `maxBytes` each with the key. The first
    /// carrier's id is `id`, the `n`th's derived from it, so the same items make the same
    /// carriers; `header` makes the envelope for a carrier's id (its schema names the
    /// carrier's). An item too large to share a carrier goes alone.
    public static func outputs(
        topic: String, key: String?, items: [[UInt8]], maxBytes: Int, id: MessageID,
        header: (_ id: MessageID) -> EnvelopeHeader
    ) throws -> [StageOutput] {
        let keyBytes = key.map { Array($0.utf8) }
        var outputs: [StageOutput] = []
        var start = 0
        while start < items.count {
            let n = outputs.count
            var value = try JSONCoding.encode(header(n == 0 ? id : MessageID.derived(from: id, "\(n)")))
            // `{…}` becomes `{…,"items":[…]}`: the items' bytes are copied, never parsed again.
            value.removeLast()
            value.append(contentsOf: Array(#","items":["#.utf8))
            let budget = maxBytes - (keyBytes?.count ?? 0) - 2
            var end = start
            while end < items.count, end == start || value.count + 1 + items[end].count <= budget {
                if end > start { value.append(UInt8(ascii: ",")) }
                value.append(contentsOf: items[end])
                end += 1
            }
            value.append(contentsOf: Array("]}".utf8))
            outputs.append(StageOutput(topic: topic, key: keyBytes, value: value))
            start = end
        }
        return outputs
    }
}
