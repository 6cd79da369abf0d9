import HallmarkCore
import HallmarkKafka
import HallmarkMessages

/// CloudEvents 1.0 in binary content mode (the Kafka protocol binding) on every message a
/// service produces: the event's attributes are headers, made from the envelope the payload
/// already carries, and the payload does not change. So a consumer that reads only the JSON
/// sees nothing new, and CloudEvents tooling (Knative and Dapr sources, the SDKs) reads the
/// same id, type and time as the payload's.
///
/// | header | from |
/// |---|---|
/// | `ce_specversion` | `1.0` |
/// | `ce_id` | `id` |
/// | `ce_source` | `/hallmark/<service>` |
/// | `ce_type` | `schema` |
/// | `ce_time` | `produced_at` |
/// | `ce_dataschema` | the schema's `$id` |
/// | `content-type` | `application/json` |
/// | `ce_correlationid` | `correlation_id`, when there is one |
///
/// Headers on input are never read: the payload is what a stage trusts.
public enum CloudEvents {
    public static let specVersion = "1.0"

    /// `ce_source` of a service's events. Not the instance's: a redelivery answered by
    /// another replica is the same event (one source, one id), so consumers can drop it.
    public static func source(service: String) -> String { "/hallmark/\(service)" }

    /// The envelope members the headers are made from, in this order.
    static let members = JSONReader.MemberNames(["schema", "id", "produced_at", "correlation_id"])

    /// `ce_type` and `ce_dataschema` of every known schema, made once: most of the headers
    /// are the same for every message of a type.
    static let typeHeaders: [String: [KafkaHeader]] = MessageSchemas.ids.reduce(into: [:]) { headers, schema in
        headers[schema.key] = [KafkaHeader("ce_type", text: schema.key), KafkaHeader("ce_dataschema", text: schema.value)]
    }
    static let specVersionHeader = KafkaHeader("ce_specversion", text: specVersion)
    static let contentTypeHeader = KafkaHeader("content-type", text: "application/json")

    /// The headers describing `value`; none when it is not a Hallmark envelope.
    public static func headers(for value: [UInt8], source: String) -> [KafkaHeader] {
        headers(for: value, source: KafkaHeader("ce_source", text: source))
    }

    static func headers(for value: [UInt8], source: KafkaHeader) -> [KafkaHeader] {
        guard let envelope = JSONReader.stringMembers(value, named: members), let type = envelope[0],
            let id = envelope[1], let time = envelope[2]
        else { return [] }
        var headers: [KafkaHeader] = []
        headers.reserveCapacity(8)
        headers.append(specVersionHeader)
        headers.append(KafkaHeader("ce_id", text: id))
        headers.append(source)
        headers += typeHeaders[type] ?? [KafkaHeader("ce_type", text: type)]
        headers.append(KafkaHeader("ce_time", text: time))
        headers.append(contentTypeHeader)
        if let correlation = envelope[3] { headers.append(KafkaHeader("ce_correlationid", text: correlation)) }
        return headers
    }

    /// What a service's producer adds to every message (``KafkaProducer/HeaderStamp``).
    public static func stamp(service: String) -> KafkaProducer.HeaderStamp {
        let source = KafkaHeader("ce_source", text: source(service: service))
        return { _, value in headers(for: value, source: source) }
    }
}
