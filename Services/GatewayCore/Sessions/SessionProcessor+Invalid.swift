import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension SessionProcessor {
    /// A handshake or close that breaks its schema but names a usable session id is answered
    /// `rejected` on the handshake result topic, so an edge waiting there never waits for ever
    /// (DESIGN §2): `invalid_public_key` when the client's key is what is wrong (not 32 bytes of
    /// canonical base64, e.g. 31 or 33 bytes), else `malformed`. Anything else (no readable
    /// session id, an inbound or outbound message) goes to the rejected topic as in every stage.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        guard message.kafka.topic == configuration.handshakeInput,
            let sessionID = message.fields["session_id"]?.string
        else { return nil }
        let reason: E2EEHandshakeResult.Reason =
            message.header.schema == E2EEHandshake.schemaName && violation.path == "$.client_public_key"
            ? .invalidPublicKey : .malformed
        let result = E2EEHandshakeResult(sessionID: sessionID, reason: reason)
        // A session id the result's schema would refuse cannot be answered: a rejected record.
        let bytes = try JSONCoding.encode(message.answer(result))
        guard let schema = MessageSchemas.schema(E2EEHandshakeResult.schemaName),
            schema.validate(try JSONReader.parse(bytes)) == nil
        else { return nil }
        metrics.handshakes[reason.rawValue]?.increment()
        return [
            StageOutput(
                topic: message.replyTopic(or: configuration.handshakeOutput), key: message.kafka.key,
                value: bytes)
        ]
    }
}
