import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport

extension FuzzTarget {
    /// Whole Kafka values on the signer's topics, through intake to the real signer and verifier.
    static let signerMessages = FuzzTarget(
        name: "signer-messages", summary: "signer inputs: envelope, schema, RequestCarrier, body, sign and verify",
        run: MessageTargets.signer, seeds: { try MessageTargets.examples(MessageTargets.signerSchemas) },
        dictionary: MessageTargets.tokens(MessageTargets.signerSchemas))

    /// Whole Kafka values on the authority's topics: token requests in every format, provisioning, admin commands.
    static let authorityMessages = FuzzTarget(
        name: "authority-messages",
        summary: "authority inputs: token requests (reference, mobile, packed) opened; provisioning; signed admin commands",
        run: MessageTargets.authority, seeds: MessageTargets.authoritySeeds,
        dictionary: MessageTargets.tokens(MessageTargets.authoritySchemas))

    /// Whole Kafka values on the gateway's topics.
    static let gatewayMessages = FuzzTarget(
        name: "gateway-messages",
        summary: "gateway inputs: ENC-1 carriers, handshakes, closes, inbound (fast path = Codable) and outbound",
        run: MessageTargets.gateway, seeds: MessageTargets.gatewaySeeds,
        dictionary: MessageTargets.tokens(MessageTargets.gatewaySchemas))

    /// Whole Kafka values on the aggregator's topics.
    static let aggregatorMessages = FuzzTarget(
        name: "aggregator-messages",
        summary: "aggregator inputs: submissions (every body; the token request they make is valid), token results, log queries",
        run: MessageTargets.aggregator, seeds: { try MessageTargets.examples(MessageTargets.aggregatorSchemas) },
        dictionary: MessageTargets.tokens(MessageTargets.aggregatorSchemas))
}

enum MessageTargets {
    static let signerSchemas: Set<String> = [SignRequest.schemaName, VerifyRequest.schemaName, SignResult.schemaName]
    static let authoritySchemas: Set<String> = [TokenRequest.schemaName, ProvisionRequest.schemaName, AdminCommand.schemaName]
    static let gatewaySchemas: Set<String> = [
        EncryptRequest.schemaName, DecryptRequest.schemaName, E2EEHandshake.schemaName,
        E2EEClose.schemaName, E2EEInbound.schemaName, E2EEOutboundRequest.schemaName,
    ]
    static let aggregatorSchemas: Set<String> = [Submission.schemaName, TokenResult.schemaName, LogVerifyRequest.schemaName]

    static func signer(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let (message, valid) = try FuzzIntake.read(bytes, topic: "signer", schemas: signerSchemas), valid else { return }
        guard let (_, request) = try carried(message) else { return }
        let smile = FuzzSmileID.shared
        if message.header.schema == SignRequest.schemaName {
            _ = try? smile.sign(request)
        } else {
            _ = try? smile.verify(request)
        }
    }

    /// The request a valid carrier message carries (nil when its body is not base64 the
    /// stage would take); a carrier its schema accepts must decode as one.
    static func carried(_ message: StageMessage) throws(FuzzFinding) -> (RequestCarrier, FuzzRequest)? {
        // A rejected result holds no request: the stages answer it `upstream_rejected`, as here.
        if RequestCarrier.rejection(in: message.fields) != nil { return nil }
        guard let carrier = try? message.decode(RequestCarrier.self) else {
            throw FuzzFinding("a request carrier its schema accepts does not decode as one")
        }
        guard let body = try? carrier.body() else { return nil }
        return (carrier, FuzzRequest(headers: carrier.headers, body: body))
    }

    static func gateway(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let (message, valid) = try FuzzIntake.read(bytes, topic: "gateway", schemas: gatewaySchemas), valid else { return }
        let smile = FuzzSmileID.shared
        switch message.header.schema {
        case EncryptRequest.schemaName, DecryptRequest.schemaName:
            guard let (carrier, request) = try carried(message) else { return }
            if message.header.schema == EncryptRequest.schemaName {
                _ = try? smile.encrypt(request, path: carrier.path ?? "/")
            } else {
                _ = try? smile.decrypt(request)
            }
        case E2EEHandshake.schemaName:
            guard let handshake = try? message.decode(E2EEHandshake.self) else { return }
            _ = try? InvisoHandshake.respond(clientPublicKeyBase64: handshake.clientPublicKey)
        case E2EEInbound.schemaName:
            let full = try? message.decode(E2EEInbound.self)
            if let fast = E2EEInbound(fields: message.fields) {
                try require(fast == full, "the inbound fast path reads a message differently from its Codable decoder")
            }
            if let inbound = full, let session = try? InvisoSession(sessionKey: E2EETarget.sessionKey) {
                _ = try? session.open(inbound.message, direction: .clientToGateway)
            }
        case E2EEOutboundRequest.schemaName:
            let full = try? message.decode(E2EEOutboundRequest.self)
            if let fast = E2EEOutboundRequest(fields: message.fields) {
                try require(fast == full, "the outbound fast path reads a request differently from its Codable decoder")
            }
            if let request = full, let plaintext = try? Base64.decode(request.plaintextB64),
                let session = try? InvisoSession(sessionKey: E2EETarget.sessionKey)
            {
                _ = try? session.seal(plaintext, direction: .gatewayToClient, counter: 1)
            }
        default:
            _ = try? message.decode(E2EEClose.self)
        }
    }

    static func aggregator(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let (message, valid) = try FuzzIntake.read(bytes, topic: "aggregator", schemas: aggregatorSchemas), valid else {
            return
        }
        switch message.header.schema {
        case Submission.schemaName:
            guard let submission = try? message.decode(Submission.self) else { return }
            _ = submission.shape
            guard let token = submission.token, !submission.entries.isEmpty else { return }
            for entry in submission.entries {
                try require(
                    (try? Hex.decode(entry.imageHash, length: 32)) != nil,
                    "a submitted image hash its schema accepts is not 32 bytes of hex")
            }
            // What intake asks the authority must meet the authority's schema and parse to the same token.
            let request = Message(
                TokenRequest(token: token), id: MessageID.derived(from: message.header.id, "token-request"),
                correlationID: MessageID.derived(from: message.header.id, "token-correlation").text,
                replyTo: "birthmark.token.results")
            guard let encoded = try? JSONCoding.encode(request), let value = try? JSONReader.parse(encoded) else {
                throw FuzzFinding("the token request a submission makes cannot be written")
            }
            try require(
                MessageSchemas.schema(TokenRequest.schemaName)?.validate(value) == nil,
                "the token request a valid submission makes breaks its schema")
            let read = try FuzzIntake.read(encoded, topic: "birthmark.token.requests", schemas: [TokenRequest.schemaName])
            try require(
                read.flatMap { TokenProcessor.token(in: $0.message)?.0 } == token,
                "the authority reads another token than the submission carried")
            // And the same in a batch carrier, as intake sends it (DESIGN §2).
            let carriers = try? BatchCarrier.outputs(
                topic: "birthmark.token.requests", key: nil, items: [encoded, encoded], maxBytes: 1 << 20,
                id: MessageID.derived(from: message.header.id, "token-request-batch")
            ) { id in EnvelopeHeader(schema: TokenRequestBatch.schemaName, id: id) }
            guard let carriers, carriers.count == 1 else { throw FuzzFinding("two token requests make no one carrier") }
            let carrier = try FuzzIntake.read(
                carriers[0].value, topic: "birthmark.token.requests", schemas: [TokenRequestBatch.schemaName])
            try require(carrier?.valid == true, "the carrier of a valid token request breaks its schema")
            let items = carrier.map { BatchCarrier.items(of: $0.message, itemSchema: TokenRequest.schemaName) } ?? []
            try require(
                items.count == 2 && items.allSatisfy { $0.violation == nil && TokenProcessor.token(in: $0.message)?.0 == token },
                "the authority reads another token from a carrier than the submission carried")
        case LogVerifyRequest.schemaName:
            guard let request = try? message.decode(LogVerifyRequest.self) else { return }
            if let hash = request.imageHash {
                try require(
                    (try? Hex.decode(hash, length: 32)) != nil, "a queried image hash its schema accepts is not 32 bytes of hex")
            }
        default:
            _ = try? message.decode(TokenResult.self)
        }
    }

    // MARK: Seeds and dictionaries

    /// `MessageExamples`' messages of these schemas.
    static func examples(_ schemas: Set<String>) throws -> [[UInt8]] {
        try MessageExamples.all().filter { schemas.contains($0.schema) }.map { try $0.bytes() }
    }

    /// The schemas' names and every member name and enum value their documents mention.
    static func tokens(_ schemas: Set<String>) -> [String] {
        var tokens = Set(schemas.map { "\"\($0)\"" })
        for name in schemas {
            guard let document = MessageSchemas.documents[name] else { continue }
            let pattern = #/"([a-z_][a-z0-9_]*)"/#
            for match in document.matches(of: pattern) { tokens.insert("\"\(match.1)\"") }
        }
        return tokens.sorted() + [
            "\"produced_at\":\"2025-01-01T00:00:00.000Z\"", "\"id\":\"00000000-0000-4000-8000-000000000000\"",
        ]
    }

    static func gatewaySeeds() throws -> [[UInt8]] {
        let session = try InvisoSession(sessionKey: E2EETarget.sessionKey)
        let wire = try session.seal(Data("hello".utf8), direction: .clientToGateway, counter: 7)
        let inbound = Message(E2EEInbound(sessionID: "session-1", message: wire))
        return try examples(gatewaySchemas) + [JSONCoding.encode(inbound)]
    }
}
