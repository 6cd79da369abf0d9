import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime

/// The gateway's E2EE-1 stage (DESIGN §1): handshakes make sessions, inbound messages are
/// decrypted and their counters checked, outbound requests are encrypted under the next
/// gateway→client counter.
///
/// A close deletes the session and its key (``SessionStore/close(_:on:)``).
///
/// Phase 1 does the cryptography (X25519, HKDF, AES-GCM) per message. Phase 2 runs once per
/// batch in the batch's transaction: new sessions, then one compare-and-set that records
/// every inbound counter (``SessionStore/receive(_:on:)``), then one that allocates the
/// outbound counters. The inbox records each message's answer in the same transaction, so a
/// redelivered message gets its first answer and a counter is never accepted twice.
public struct SessionProcessor: StageProcessor {
    public indirect enum Prepared: Sendable {
        case handshake(StageMessage, E2EEHandshake, Result<(key: Data, publicKey: Data), RejectedHandshake>)
        case close(StageMessage, E2EEClose)
        case inbound(StageMessage, E2EEInbound, Result<Data, RejectedInbound>)
        case outbound(StageMessage, E2EEOutboundRequest, Result<(key: Data, plaintext: Data), RejectedOutbound>)
    }

    public struct RejectedHandshake: Error { let reason: E2EEHandshakeResult.Reason }
    public struct RejectedInbound: Error { let reason: E2EEPlaintext.Reason }
    public struct RejectedOutbound: Error { let reason: E2EEOutbound.Reason }

    let configuration: GatewayConfiguration
    let store: SessionStore
    let keys = SessionKeyCache()
    let metrics = SessionMetrics()
    let events: GatewayEvents
    let now: @Sendable () -> Date

    public init(configuration: GatewayConfiguration, store: SessionStore, events: GatewayEvents,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.store = store
        self.events = events
        self.now = now
    }

    public var inputs: [StageInput] {
        [StageInput(topic: configuration.handshakeInput, schemas: [E2EEHandshake.schemaName, E2EEClose.schemaName]),
         StageInput(topic: configuration.inboundInput, schemas: [E2EEInbound.schemaName]),
         StageInput(topic: configuration.outboundInput, schemas: [E2EEOutboundRequest.schemaName])]
    }

    public func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        switch message.kafka.topic {
        case configuration.handshakeInput where message.header.schema == E2EEClose.schemaName:
            return .close(message, try message.decode(E2EEClose.self))
        case configuration.handshakeInput:
            let handshake = try message.decode(E2EEHandshake.self)
            do {
                let response = try InvisoHandshake.respond(clientPublicKeyBase64: handshake.clientPublicKey)
                return .handshake(message, handshake, .success((response.sessionKey, response.gatewayPublicKey)))
            } catch {
                let reason: E2EEHandshakeResult.Reason = error.code == .weakSharedSecret ? .weakKey : .invalidPublicKey
                return .handshake(message, handshake, .failure(RejectedHandshake(reason: reason)))
            }
        case configuration.inboundInput:
            let inbound = try E2EEInbound(fields: message.fields) ?? message.decode(E2EEInbound.self)
            guard inbound.message.version == 1 else {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .unsupportedVersion)))
            }
            guard inbound.message.counter <= InvisoWireMessage.maximumCounter else {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .malformed)))
            }
            guard let key = try await sessionKey(inbound.sessionID, context: context) else {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .unknownSession)))
            }
            do {
                let plaintext = try InvisoSession(sessionKey: key).open(inbound.message, direction: .clientToGateway)
                return .inbound(message, inbound, .success(plaintext))
            } catch let error where error.code == .malformedBase64 || error.code == .invalidLength {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .malformed)))
            } catch {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .authenticationFailed)))
            }
        default:
            let request = try E2EEOutboundRequest(fields: message.fields) ?? message.decode(E2EEOutboundRequest.self)
            guard let plaintext = Data(base64Encoded: request.plaintextB64) else {
                return .outbound(message, request, .failure(RejectedOutbound(reason: .malformed)))
            }
            guard let key = try await sessionKey(request.sessionID, context: context) else {
                return .outbound(message, request, .failure(RejectedOutbound(reason: .unknownSession)))
            }
            return .outbound(message, request, .success((key, plaintext)))
        }
    }

    /// The session's key from the cache, else from its row.
    func sessionKey(_ sessionID: String, context: StageContext) async throws -> Data? {
        if let key = keys.get(sessionID) { return key }
        guard let pool = context.pool, let key = try await store.key(sessionID, pool: pool) else { return nil }
        keys.put(sessionID, key)
        return key
    }
}
