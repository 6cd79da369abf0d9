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
package struct SessionProcessor: TransactionalStageProcessor {
    package indirect enum Prepared: Sendable {
        case handshake(StageMessage, E2EEHandshake, Result<(key: Data, publicKey: Data), RejectedHandshake>)
        case close(StageMessage, E2EEClose)
        /// The plaintext and the generation of the session key that opened it.
        case inbound(StageMessage, E2EEInbound, Result<(plaintext: Data, generation: Int64), RejectedInbound>)
        case outbound(StageMessage, E2EEOutboundRequest, Result<(key: SessionKey, plaintext: Data), RejectedOutbound>)
    }

    package struct RejectedHandshake: Error { let reason: E2EEHandshakeResult.Reason }
    package struct RejectedInbound: Error {
        let reason: E2EEPlaintext.Reason
        /// The generation of the cached key that failed to open it: phase 2 tries the row's key
        /// when the row is of another generation (``reopen(_:on:)``).
        var cachedGeneration: Int64?
    }
    package struct RejectedOutbound: Error { let reason: E2EEOutbound.Reason }

    let configuration: GatewayConfiguration
    let store: SessionStore
    let keys = SessionKeyCache()
    let metrics = SessionMetrics()
    let events: GatewayEvents
    let now: @Sendable () -> Date

    package init(
        configuration: GatewayConfiguration, store: SessionStore, events: GatewayEvents,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.store = store
        self.events = events
        self.now = now
    }

    package var inputs: [StageInput] {
        [
            StageInput(topic: configuration.handshakeInput, schemas: [E2EEHandshake.schemaName, E2EEClose.schemaName]),
            StageInput(topic: configuration.inboundInput, schemas: [E2EEInbound.schemaName]),
            StageInput(topic: configuration.outboundInput, schemas: [E2EEOutboundRequest.schemaName]),
        ]
    }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
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
            guard let found = try await sessionKey(inbound.sessionID, context: context) else {
                return .inbound(message, inbound, .failure(RejectedInbound(reason: .unknownSession)))
            }
            return .inbound(message, inbound, open(inbound, found.key, cached: found.cached))
        default:
            let request = try E2EEOutboundRequest(fields: message.fields) ?? message.decode(E2EEOutboundRequest.self)
            guard let plaintext = Data(base64Encoded: request.plaintextB64) else {
                return .outbound(message, request, .failure(RejectedOutbound(reason: .malformed)))
            }
            guard let found = try await sessionKey(request.sessionID, context: context) else {
                return .outbound(message, request, .failure(RejectedOutbound(reason: .unknownSession)))
            }
            return .outbound(message, request, .success((found.key, plaintext)))
        }
    }

    /// Opens an inbound message. A cached key that fails may be a closed session's (another
    /// replica closed the id and made it again): the failure names the key's generation, and
    /// phase 2 tries the row's key when it is of another one, so the new session's messages are
    /// not refused (one read per batch, not per forged message).
    func open(
        _ inbound: E2EEInbound, _ key: SessionKey, cached: Bool
    )
        -> Result<(plaintext: Data, generation: Int64), RejectedInbound>
    {
        do {
            let plaintext = try InvisoSession(sessionKey: key.key).open(inbound.message, direction: .clientToGateway)
            return .success((plaintext, key.generation))
        } catch let error where error.code == .malformedBase64 || error.code == .invalidLength {
            return .failure(RejectedInbound(reason: .malformed))
        } catch {
            return .failure(RejectedInbound(reason: .authenticationFailed, cachedGeneration: cached ? key.generation : nil))
        }
    }

    /// The session's key from the cache (`cached`), else from its row.
    func sessionKey(_ sessionID: String, context: StageContext) async throws -> (key: SessionKey, cached: Bool)? {
        if let key = keys.get(sessionID) { return (key, true) }
        guard let pool = context.pool, let key = try await store.key(sessionID, pool: pool) else { return nil }
        keys.put(sessionID, key)
        return (key, false)
    }
}
