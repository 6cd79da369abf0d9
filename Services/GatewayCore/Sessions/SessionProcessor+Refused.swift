import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension SessionProcessor {
    /// A handshake, close, inbound message or outbound request refused before it was read (a
    /// broken envelope, too large, an id already used, failing) but whose id reads is answered
    /// `rejected` on its result topic (DESIGN §2), when it names a session id its result's
    /// schema takes (a result needs one); otherwise its rejected record is its answer.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        guard let sessionID = message.fields["session_id"]?.string ?? message.key else { return nil }
        let (topic, name, bytes): (String, String, [UInt8])
        switch message.kafka.topic {
        case configuration.handshakeInput:
            let reason = E2EEHandshakeResult.Reason(rawValue: message.resultReason) ?? .malformed
            (topic, name) = (configuration.handshakeOutput, E2EEHandshakeResult.schemaName)
            bytes = try JSONCoding.encode(message.answer(E2EEHandshakeResult(sessionID: sessionID, reason: reason)))
        case configuration.inboundInput:
            let reason = E2EEPlaintext.Reason(rawValue: message.resultReason) ?? .malformed
            (topic, name) = (configuration.plaintextOutput, E2EEPlaintext.schemaName)
            bytes = try JSONCoding.encode(message.answer(E2EEPlaintext(sessionID: sessionID, reason: reason)))
        case configuration.outboundInput:
            let reason = E2EEOutbound.Reason(rawValue: message.resultReason) ?? .malformed
            (topic, name) = (configuration.outboundOutput, E2EEOutbound.schemaName)
            bytes = try JSONCoding.encode(message.answer(E2EEOutbound(sessionID: sessionID, reason: reason)))
        default:
            return nil
        }
        // A session id the result's schema would refuse cannot be answered: a rejected record.
        guard let schema = MessageSchemas.schema(name), schema.validate(try JSONReader.parse(bytes)) == nil else { return nil }
        return [StageOutput(topic: message.replyTopic(or: topic), key: message.kafka.key, value: bytes)]
    }
}
