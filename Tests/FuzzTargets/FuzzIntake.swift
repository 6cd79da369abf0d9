import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime

/// What a stage's intake makes of raw bytes on one of its topics (envelope, the schema's place,
/// JSON Schema), and the properties that must hold on the way: a message its schema accepts
/// decodes as its type (``Message`` of its body), since a stage must be exactly as strict as
/// its schemas.
enum FuzzIntake {
    /// The Swift body types of results' rejected forms (``CarrierRejection``).
    static let rejections: [String: any MessageBody.Type] = [
        SignResult.schemaName: CarrierRejection<SignResult>.self,
        EncryptResult.schemaName: CarrierRejection<EncryptResult>.self,
    ]
    static let types: [String: any MessageBody.Type] = Dictionary(
        uniqueKeysWithValues: MessageTypes.all.map { ($0.schemaName, $0) })

    /// The message, if its envelope reads and its schema is one `schemas` takes; `valid` says
    /// whether the body passed the schema (an invalid one still reaches a processor's
    /// `answer(invalid:)`).
    static func read(
        _ bytes: [UInt8], topic: String, schemas: Set<String>
    ) throws(FuzzFinding) -> (message: StageMessage, valid: Bool)? {
        guard let (header, fields) = try? EnvelopeHeader.read(bytes) else { return nil }
        // The id as written (DESIGN §2: answers echo it), and a UUID in either case.
        try require(
            UUID(text: header.id.text) != nil && fields["id"]?.string == header.id.text,
            "an envelope id is not the UUID as written")
        guard schemas.contains(header.schema), let schema = MessageSchemas.schema(header.schema),
            var type = types[header.schema]
        else { return nil }
        // A result's rejected form (status rejected, no request) is its own Swift type.
        if fields["status"]?.string == "rejected", let rejection = rejections[header.schema] { type = rejection }
        let message = StageMessage(
            header: header, kafka: KafkaMessage(topic: topic, partition: 0, offset: 0, key: nil, value: bytes),
            fields: fields)
        guard schema.validate(.object(fields)) == nil else { return (message, false) }
        do {
            _ = try decode(type, message)
        } catch {
            throw FuzzFinding("a \(header.schema) its schema accepts does not decode (\(error.reason))")
        }
        return (message, true)
    }

    private static func decode<Body: MessageBody>(
        _ type: Body.Type, _ message: StageMessage
    ) throws(EnvelopeError) -> any HallmarkMessage {
        try message.decode(Message<Body>.self)
    }
}
