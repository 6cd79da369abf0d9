import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

extension MessageExamples {
    static func gateway() throws -> [Example] {
        let headers = [
            "Content-Type": "application/json", "SmileID-Partner-ID": "002",
            "SmileID-Request-Timestamp": "2025-01-01T00:00:00.000Z",
        ]
        var encrypted = headers
        encrypted["Content-Type"] = "application/octet-stream"
        encrypted["SmileID-Encryption-Version"] = "1.0"
        encrypted["SmileID-Request-ID"] = "req-1"
        encrypted["SmileID-Content-Encrypted"] = "true"
        let plain = Base64.encode(Data(#"{"job_id":"job-1"}"#.utf8))
        let envelope = Base64.encode(
            Data(
                #"{"algorithm":"AES-256-GCM","auth_tag":"amVGVBanJvS7NoTlXi/QWA==","encrypted_data":"+Wxvj0z8ivL82L4MIn34AZuZ","iv":"AAECAwQFBgcICQoL","timestamp":"2025-01-01T00:00:00.000Z","version":"1.0"}"#
                    .utf8))
        let request = id(), session = UUID().uuidString
        let client = try X25519.generate(), gateway = try X25519.generate()
        let wire = InvisoWireMessage(
            counter: 0, nonce: "AAECAwQFBgcICQoL", ciphertext: "qLHZZ2kxsjQBMREBIg==",
            tag: "VtSKr7KW5uPSKgsjUFxR3w==")
        return [
            Example(
                "JSON request",
                EncryptRequest(
                    id: id(), producedAt: now(), headers: headers, bodyB64: plain, method: "POST",
                    path: "/v1/id_verification", timestamp: "2025-01-01T00:00:00.000Z")),
            Example(
                "encrypted",
                EncryptResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    decision: .encrypted(.json), headers: encrypted, bodyB64: envelope, method: "POST",
                    path: "/v1/id_verification")),
            Example(
                "passed through",
                EncryptResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    decision: .passedThrough(.excludedPath), headers: headers, bodyB64: plain,
                    path: "/v1/health")),
            Example(
                "rejected",
                CarrierRejection<EncryptResult>(
                    id: id(), producedAt: now(), correlationID: request,
                    requestID: request, reason: .malformedMultipart)),
            Example(
                "request",
                DecryptRequest(
                    id: id(), producedAt: now(), headers: encrypted, bodyB64: envelope, method: "POST",
                    path: "/v1/id_verification")),
            Example(
                "accepted",
                DecryptResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    headers: headers, bodyB64: plain, method: "POST", path: "/v1/id_verification")),
            Example(
                "rejected",
                DecryptResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    reason: .authenticationFailed)),
            Example(
                "handshake",
                E2EEHandshake(
                    id: id(), producedAt: now(), sessionID: session,
                    clientPublicKey: Base64.encode(client.publicKey))),
            Example(
                "complete",
                E2EEHandshakeResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, gatewayPublicKey: Base64.encode(gateway.publicKey),
                    expiresAt: "2025-01-01T01:00:00Z")),
            Example(
                "rejected",
                E2EEHandshakeResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, reason: .sessionInUse)),
            Example("close", E2EEClose(id: id(), producedAt: now(), sessionID: session)),
            Example(
                "closed",
                E2EEHandshakeResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    closedSessionID: session)),
            Example("inbound", E2EEInbound(id: id(), producedAt: now(), sessionID: session, message: wire)),
            Example(
                "decrypted",
                E2EEPlaintext(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, counter: 0, plaintextB64: Base64.encode(Data("Hello, World!".utf8)))),
            Example(
                "replay",
                E2EEPlaintext(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, reason: .replay, counter: 0)),
            Example(
                "outbound request",
                E2EEOutboundRequest(
                    id: id(), producedAt: now(), sessionID: session,
                    plaintextB64: Base64.encode(Data("Hi".utf8)))),
            Example(
                "encrypted",
                E2EEOutbound(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, message: wire)),
            Example(
                "unknown session",
                E2EEOutbound(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    sessionID: session, reason: .unknownSession)),
        ]
    }

    static func aggregator() throws -> [Example] {
        let master = try SecureRandom.bytes(32), nuc = try SecureRandom.bytes(32)
        let reference = try BirthmarkCameraToken.seal(nucHash: nuc, master: master, tableId: 12, keyIndex: 42)
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 9, 12],
            keyIndices: [1, 2, 3], used: 0)
        let raw = try hex(32), processed = try hex(32)
        let pair = [
            Submission.ImageHash(imageHash: raw, modificationLevel: 0),
            Submission.ImageHash(imageHash: processed, modificationLevel: 1, parentImageHash: raw),
        ]
        let isp = Submission.ISPValidation(
            varianceMetric: 0.0123,
            ispParameters: .init(
                whiteBalance: .init(redGain: 1.25, blueGain: 1.15),
                exposureAdjustment: 0, sharpening: 0.5, noiseReduction: 0.3),
            sampleCount: 100, shootingMode: "standard", metricVersion: "v2.0")
        // A real log: five leaves, a signed checkpoint, proofs against it.
        let seed = try SecureRandom.bytes(32)
        let leaves = try (0..<5).map { i in
            try BirthmarkLogLeaf(
                imageHash: i == 2 ? Hex.decode(raw) : SecureRandom.bytes(32), timestamp: 1_733_259_600,
                modificationLevel: 0)
        }
        let hashes = leaves.map(\.leafHash)
        let checkpoint = try SignedCheckpoint(
            LogCheckpoint(
                treeSize: 5, rootHash: MerkleTree.root(leafHashes: hashes),
                timestamp: 1_733_259_700), seed: seed)
        let inclusion = try MerkleTree.inclusionProof(leafIndex: 2, leafHashes: hashes).map { Hex.encode($0) }
        let consistency = try MerkleTree.consistencyProof(oldSize: 3, leafHashes: hashes).map { Hex.encode($0) }
        let request = id()
        return [
            Example(
                "Hallmark's own, mobile token",
                Submission(
                    id: id(), producedAt: now(), imageHashes: pair, token: .mobile(mobile), timestamp: 1_733_259_600,
                    gpsHash: try hex(32), ownerHash: try hex(32))),
            Example(
                "Hallmark's own, reference token",
                Submission(
                    id: id(), producedAt: now(), imageHashes: [pair[0]], token: .reference(reference), timestamp: 1_733_259_600)),
            Example(
                "CameraSubmission",
                Submission(
                    id: id(), producedAt: now(), cameraSubmission: pair, cameraToken: reference,
                    manufacturerCert: .init(authorityID: "CANON_001", validationEndpoint: "https://sma.example.com/validate"),
                    timestamp: 1_733_259_600)),
            Example(
                "Raspberry Pi flat bundle",
                Submission(
                    id: id(), producedAt: now(), flatBundle: pair[1], packed: try packed(reference, tables: [12, 3, 9]),
                    timestamp: 1_733_259_600, ownerHash: try hex(32), deviceSignature: try b64(71), ispValidation: isp)),
            Example(
                "accepted",
                SubmissionResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    leaves: [
                        .init(imageHash: raw, leafIndex: 2, status: .appended),
                        .init(imageHash: processed, leafIndex: 0, status: .duplicate),
                    ], treeSize: 5)),
            Example(
                "duplicate",
                SubmissionResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    leaves: [.init(imageHash: raw, leafIndex: 2, status: .duplicate)], treeSize: nil)),
            Example(
                "rejected",
                SubmissionResult(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    reason: .init(.blacklisted))),
            Example("checkpoint", Checkpoint(id: id(), producedAt: now(), checkpoint)),
            Example(
                "inclusion", LogVerifyRequest(id: id(), producedAt: now(), imageHash: raw, replyTo: "birthmark.verify.results")),
            Example("consistency", LogVerifyRequest(id: id(), producedAt: now(), oldTreeSize: 3, newTreeSize: 5)),
            Example(
                "found",
                LogVerifyResult.found(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    record: .init(imageHash: raw, timestamp: 1_733_259_600, modificationLevel: 0), leafIndex: 2,
                    checkpoint: checkpoint, proof: inclusion)),
            Example(
                "not found",
                LogVerifyResult.notFound(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    imageHash: processed, checkpoint: checkpoint)),
            Example(
                "consistent",
                LogVerifyResult.consistent(
                    id: id(), producedAt: now(), correlationID: request,
                    requestID: request, oldTreeSize: 3, checkpoint: checkpoint,
                    proof: consistency)),
            Example(
                "rejected",
                LogVerifyResult.rejected(
                    id: id(), producedAt: now(), correlationID: request, requestID: request,
                    query: .consistency, reason: .unknownTreeSize)),
        ]
    }

    static func privacy() throws -> [Example] {
        let seed = try SecureRandom.bytes(32)
        let request = id()
        func result(_ action: PrivacyRequest.Action, _ status: PrivacyResult.Status) -> PrivacyResult {
            PrivacyResult(
                id: id(), producedAt: now(), correlationID: request, requestID: request, service: "authority",
                instance: "host-1", action: action, subjectType: .deviceSerial, status: status)
        }
        var export = result(.export, .completed)
        export.records = [
            .init(
                source: "authority.devices",
                fields: [
                    "serial": .string("CAM-0001"), "table_a": .integer(3), "blacklisted": .bool(false), "device_family": .null,
                    "provisioned_at": .string("2025-01-01T00:00:00.000Z"), "score": .number(0.5),
                ])
        ]
        export.auditSequence = 7
        var erase = result(.erase, .completed)
        erase.erased = [.init(source: "authority.devices", count: 1)]
        erase.retained = [
            .init(source: "authority.replay_ledger", count: 3, why: .replayWindow, until: "2025-01-02T00:00:00Z"),
            .init(source: "authority.tombstones", count: 1, why: .tombstone),
        ]
        var rejected = result(.erase, .rejected)
        rejected.reason = .badSignature
        let first = try AuditRecord(
            id: id(), producedAt: now(), service: "authority", after: nil, occurredAt: now(),
            actor: .operator, actorKeyID: "ops-1", action: .blacklist, subjectType: .deviceSerial,
            subjectIndex: try hex(32), requestID: id(), outcome: .succeeded)
        let second = try AuditRecord(
            id: id(), producedAt: now(), service: "authority", after: first, occurredAt: now(),
            actor: .service, actorKeyID: nil, action: .retireTable, subjectType: .tableID,
            subjectIndex: nil, tableID: 12, requestID: nil, outcome: .succeeded)
        return [
            Example(
                "export",
                try PrivacyRequest(
                    id: id(), producedAt: now(), action: .export, subjectType: .deviceSerial,
                    subject: "CAM-0001", reason: "ticket 42", keyID: "ops-1", seed: seed)),
            Example(
                "erase a session",
                try PrivacyRequest(
                    id: id(), producedAt: now(), action: .erase, subjectType: .sessionID,
                    subject: UUID().uuidString, keyID: "ops-1", seed: seed)),
            Example("export", export), Example("erase", erase), Example("not found", result(.export, .notFound)),
            Example("rejected", rejected),
            Example("first", first), Example("second", second),
        ]
    }
}
