import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension SessionProcessor {
    /// One transaction for a whole batch.
    package var unitOfWork: StageUnitOfWork { .perBatch }

    package func commit(_ prepared: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        var outputs = [[StageOutput]](repeating: [], count: prepared.count)
        // 1. New and closed sessions, in order (a second handshake for one id in the batch finds
        // it in use; a close after a handshake closes the session it made).
        for (i, item) in prepared.enumerated() {
            switch item {
            case .close(let message, let close):
                outputs[i] = [try await closeSession(message, close, on: connection)]
            case .handshake(let message, let handshake, let outcome):
                outputs[i] = [try await makeSession(message, handshake, outcome, on: connection)]
            case .inbound, .outbound: continue
            }
        }
        // 2. Messages a cached key of a closed session failed to open, opened with the row's key;
        // then every authenticated inbound counter, checked and recorded by one compare-and-set.
        let batch = try await reopen(prepared, on: connection)
        let received = batch.indices.compactMap { i -> (Int, String, Int64, UInt64)? in
            guard case .inbound(_, let inbound, .success(let opened)) = batch[i] else { return nil }
            return (i, inbound.sessionID, opened.generation, inbound.message.counter)
        }
        let verdicts = try await store.receive(received.map { ($0.1, $0.2, $0.3) }, on: connection)
        var verdictAt: [Int: SessionStore.Verdict] = [:]
        for (item, verdict) in zip(received, verdicts) {
            verdictAt[item.0] = verdict
            // This replica's key is a closed session's: read the row's next time.
            if verdict == .staleKey { keys.remove(item.1, generation: item.2) }
        }
        // 3. Outbound counters, allocated per session in one statement, handed out in order.
        var wanted: [String: Int] = [:]
        for case .outbound(_, let request, .success) in batch { wanted[request.sessionID, default: 0] += 1 }
        let allocated = try await store.allocate(wanted, on: connection)
        var next = allocated.mapValues(\.first)
        // Counters belong to the live row's generation, so are sealed with its key; a cached key
        // of a closed session is replaced (unsealed once per session and batch).
        var liveKeys: [String: SessionKey] = [:]
        func liveKey(_ sessionID: String, _ held: SessionKey) throws -> SessionKey {
            guard let row = allocated[sessionID], row.generation != held.generation else { return held }
            if let known = liveKeys[sessionID] { return known }
            let fresh = SessionKey(key: try store.open(row.sealedKey, sessionID), generation: row.generation)
            liveKeys[sessionID] = fresh
            keys.put(sessionID, fresh)
            return fresh
        }
        for (i, item) in batch.enumerated() {
            switch item {
            case .handshake, .close: continue
            case .inbound(let message, let inbound, let outcome):
                outputs[i] = try inboundOutputs(message, inbound, outcome, verdictAt[i])
            case .outbound(let message, let request, let outcome):
                func refused(_ reason: E2EEOutbound.Reason) -> E2EEOutbound {
                    E2EEOutbound(
                        sessionID: request.sessionID, reason: reason)
                }
                var result: E2EEOutbound
                switch (outcome, next[request.sessionID]) {
                case (.success(let work), let counter?):
                    next[request.sessionID] = counter + 1
                    let key = try liveKey(request.sessionID, work.key)
                    let wire = try InvisoSession(sessionKey: key.key).seal(
                        work.plaintext, direction: .gatewayToClient,
                        counter: counter)
                    result = E2EEOutbound(
                        sessionID: request.sessionID, message: wire)
                case (.success, nil): result = refused(.unknownSession)
                case (.failure(let refusal), _): result = refused(refusal.reason)
                }
                metrics.messages[.gatewayToClient]?[result.reason?.rawValue ?? "encrypted"]?.increment()
                // Written directly: every outbound request is answered with one.
                outputs[i] = [
                    StageOutput(
                        topic: message.replyTopic(or: configuration.outboundOutput), key: Array(request.sessionID.utf8),
                        value: message.answer(result).jsonBytes)
                ]
            }
        }
        return outputs.map { .outputs($0) }
    }

    /// A handshake's session stored (or refused), and its answer.
    func makeSession(
        _ message: StageMessage, _ handshake: E2EEHandshake,
        _ outcome: Result<(key: Data, publicKey: Data), RejectedHandshake>,
        on connection: PostgresConnection
    ) async throws -> StageOutput {
        var result: E2EEHandshakeResult
        switch outcome {
        case .success(let made):
            let expires = now().addingTimeInterval(configuration.sessionTTL)
            if try await store.create(
                handshake.sessionID, sessionKey: made.key, gatewayPublicKey: made.publicKey,
                expires: expires, on: connection) != nil
            {
                keys.remove(handshake.sessionID)
                result = E2EEHandshakeResult(
                    sessionID: handshake.sessionID,
                    gatewayPublicKey: made.publicKey.base64EncodedString(),
                    expiresAt: Timestamp.format(expires))
            } else {
                result = rejected(message, handshake, .sessionInUse)
            }
        case .failure(let refusal):
            result = rejected(message, handshake, refusal.reason)
        }
        metrics.handshakes[result.reason?.rawValue ?? "complete"]?.increment()
        return try message.reply(result, or: configuration.handshakeOutput, key: handshake.sessionID)
    }

    /// A session and its key deleted, and the `closed` answer.
    func closeSession(
        _ message: StageMessage, _ close: E2EEClose, on connection: PostgresConnection
    ) async throws
        -> StageOutput
    {
        try await store.close(close.sessionID, on: connection)
        keys.remove(close.sessionID)
        metrics.handshakes["closed"]?.increment()
        let result = E2EEHandshakeResult(
            closedSessionID: close.sessionID)
        return try message.reply(result, or: configuration.handshakeOutput, key: close.sessionID)
    }

    /// An inbound message's answer, and the security events its rejection raised, if any.
    func inboundOutputs(
        _ message: StageMessage, _ inbound: E2EEInbound,
        _ outcome: Result<(plaintext: Data, generation: Int64), RejectedInbound>,
        _ verdict: SessionStore.Verdict?
    ) throws -> [StageOutput] {
        let counter = inbound.message.counter
        var reason: E2EEPlaintext.Reason?
        var plaintext: Data?
        switch (outcome, verdict) {
        case (.failure(let refusal), _): reason = refusal.reason
        case (.success(let opened), .accept?): plaintext = opened.plaintext
        case (.success, .replay?): reason = .replay
        case (.success, .counterJump?): reason = .counterJump
        // Sealed with a closed session's key: not authentic for the session the id names now.
        case (.success, .staleKey?): reason = .authenticationFailed
        case (.success, _): reason = .unknownSession
        }
        let result =
            plaintext.map {
                E2EEPlaintext(
                    sessionID: inbound.sessionID, counter: counter,
                    plaintextB64: $0.base64EncodedString())
            }
            ?? E2EEPlaintext(
                sessionID: inbound.sessionID, reason: reason!, counter: counter)
        metrics.messages[.clientToGateway]?[reason?.rawValue ?? "decrypted"]?.increment()
        let answer = StageOutput(
            topic: message.replyTopic(or: configuration.plaintextOutput), key: Array(inbound.sessionID.utf8),
            value: message.answer(result).jsonBytes)
        return try [answer] + (reason.map { try events.inbound(message, session: inbound.sessionID, reason: $0) } ?? [])
    }

    func rejected(
        _ message: StageMessage, _ handshake: E2EEHandshake, _ reason: E2EEHandshakeResult.Reason
    ) -> E2EEHandshakeResult {
        E2EEHandshakeResult(
            sessionID: handshake.sessionID, reason: reason)
    }
}
