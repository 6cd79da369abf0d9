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
                Message(
                    EncryptRequest(
                        headers: headers, bodyB64: plain, method: "POST", path: "/v1/id_verification",
                        timestamp: "2025-01-01T00:00:00.000Z"))),
            Example(
                "encrypted",
                answer(
                    EncryptResult(
                        decision: .encrypted(.json), headers: encrypted, bodyB64: envelope, method: "POST",
                        path: "/v1/id_verification"),
                    to: request)),
            Example(
                "passed through",
                answer(
                    EncryptResult(
                        decision: .passedThrough(.excludedPath), headers: headers, bodyB64: plain,
                        path: "/v1/health"),
                    to: request)),
            Example(
                "rejected",
                answer(CarrierRejection<EncryptResult>(reason: .malformedMultipart), to: request)),
            Example(
                "request",
                Message(
                    DecryptRequest(headers: encrypted, bodyB64: envelope, method: "POST", path: "/v1/id_verification"))),
            Example(
                "accepted",
                answer(
                    DecryptResult(headers: headers, bodyB64: plain, method: "POST", path: "/v1/id_verification"),
                    to: request)),
            Example(
                "rejected",
                answer(DecryptResult(reason: .authenticationFailed), to: request)),
            Example(
                "handshake",
                Message(E2EEHandshake(sessionID: session, clientPublicKey: Base64.encode(client.publicKey)))),
            Example(
                "complete",
                answer(
                    E2EEHandshakeResult(
                        sessionID: session, gatewayPublicKey: Base64.encode(gateway.publicKey),
                        expiresAt: "2025-01-01T01:00:00Z"),
                    to: request)),
            Example(
                "rejected",
                answer(E2EEHandshakeResult(sessionID: session, reason: .sessionInUse), to: request)),
            Example("close", Message(E2EEClose(sessionID: session))),
            Example(
                "closed",
                answer(E2EEHandshakeResult(closedSessionID: session), to: request)),
            Example("inbound", Message(E2EEInbound(sessionID: session, message: wire))),
            Example(
                "decrypted",
                answer(
                    E2EEPlaintext(
                        sessionID: session, counter: 0, plaintextB64: Base64.encode(Data("Hello, World!".utf8))),
                    to: request)),
            Example(
                "replay",
                answer(E2EEPlaintext(sessionID: session, reason: .replay, counter: 0), to: request)),
            Example(
                "outbound request",
                Message(E2EEOutboundRequest(sessionID: session, plaintextB64: Base64.encode(Data("Hi".utf8))))),
            Example(
                "encrypted",
                answer(E2EEOutbound(sessionID: session, message: wire), to: request)),
            Example(
                "unknown session",
                answer(E2EEOutbound(sessionID: session, reason: .unknownSession), to: request)),
        ]
    }

    static func aggregator() throws -> [Example] {
        let master = try SecureRandom.bytes(32), nuc = try SecureRandom.bytes(32)
        let reference = try BirthmarkCameraToken.seal(nucHash: nuc, master: master, tableId: 12, keyIndex: 42)
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 9, 12],
            keyIndices: [1, 2, 3], used: 0)
        let raw = try hex(32), processed = try hex(32), edited = try hex(32)
        // An editor's claims: the processed image edited, then that edit edited again.
        let claimID = id()
        let claim = ModificationClaim(
            originalImageHash: processed, finalImageHash: edited, modificationLevel: 2, authenticated: true,
            originalDimensions: [4056, 3040], finalDimensions: [2028, 1520], softwareID: "GIMP-2.10",
            pluginVersion: "1.0.0", initializedAt: Timestamp("2026-11-29T10:00:00.123Z")!,
            exportedAt: Timestamp("2026-11-29T10:05:00.000Z")!)
        let reclaim = ModificationClaim(
            originalImageHash: edited, finalImageHash: try hex(32), modificationLevel: 2, authenticated: false,
            softwareID: "Unknown", pluginVersion: "1.0.0", initializedAt: Timestamp("2026-11-29T11:00:00Z")!,
            exportedAt: Timestamp("2026-11-29T11:00:01.5Z")!)
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
                Message(
                    Submission(
                        imageHashes: pair, token: .mobile(mobile), timestamp: 1_733_259_600,
                        gpsHash: try hex(32), ownerHash: try hex(32)))),
            Example(
                "Hallmark's own, reference token",
                Message(Submission(imageHashes: [pair[0]], token: .reference(reference), timestamp: 1_733_259_600))),
            Example(
                "CameraSubmission",
                Message(
                    Submission(
                        cameraSubmission: pair, cameraToken: reference,
                        manufacturerCert: .init(
                            authorityID: "CANON_001", validationEndpoint: "https://sma.example.com/validate"),
                        timestamp: 1_733_259_600))),
            Example(
                "Raspberry Pi flat bundle",
                Message(
                    Submission(
                        flatBundle: pair[1], packed: try packed(reference, tables: [12, 3, 9]),
                        timestamp: 1_733_259_600, ownerHash: try hex(32), deviceSignature: try b64(71),
                        ispValidation: isp))),
            Example(
                "certificate bundle",
                Message(
                    Submission(
                        certificateBundle: raw, cameraCert: try b64(520), bundleSignature: try b64(71),
                        timestamp: 1_733_259_600, gpsHash: try hex(32)))),
            Example(
                "certificate bundle accepted",
                answer(
                    SubmissionResult(
                        leaves: [.init(imageHash: raw, leafIndex: 7, status: .appended)], treeSize: 8,
                        signedFields: "image_hash_timestamp"),
                    to: request)),
            Example(
                "accepted",
                answer(
                    SubmissionResult(
                        leaves: [
                            .init(imageHash: raw, leafIndex: 2, status: .appended),
                            .init(imageHash: processed, leafIndex: 0, status: .duplicate),
                        ], treeSize: 5),
                    to: request)),
            Example(
                "duplicate",
                answer(
                    SubmissionResult(leaves: [.init(imageHash: raw, leafIndex: 2, status: .duplicate)], treeSize: nil),
                    to: request)),
            Example(
                "rejected",
                answer(SubmissionResult(reason: .blacklisted), to: request)),
            Example("checkpoint", Message(Checkpoint(checkpoint))),
            Example("inclusion", Message(LogVerifyRequest(imageHash: raw), replyTo: "birthmark.verify.results")),
            Example("consistency", Message(LogVerifyRequest(oldTreeSize: 3, newTreeSize: 5))),
            Example(
                "found",
                answer(
                    LogVerifyResult.found(
                        record: .init(imageHash: raw, timestamp: 1_733_259_600, modificationLevel: 0), leafIndex: 2,
                        checkpoint: checkpoint, proof: inclusion),
                    to: request)),
            Example(
                "found, with what the camera sent beside the hash",
                answer(
                    LogVerifyResult.found(
                        record: .init(imageHash: raw, timestamp: 1_733_259_600, modificationLevel: 0),
                        attribution: .init(gpsHash: try hex(32), ownerHash: try hex(32)), leafIndex: 2,
                        checkpoint: checkpoint, proof: inclusion),
                    to: request)),
            Example("provenance", Message(LogVerifyRequest(provenanceOf: processed))),
            Example(
                "traced",
                answer(
                    LogVerifyResult.traced(
                        imageHash: edited,
                        chain: [
                            .init(attested: raw, level: 0, parent: nil, leafIndex: 2, timestamp: 1_733_259_600),
                            .init(attested: processed, level: 1, parent: raw, leafIndex: 3, timestamp: 1_733_259_600),
                            .init(claimed: claim, claimID: claimID.text),
                        ],
                        derived: [.init(claimed: reclaim, claimID: id().text)], checkpoint: checkpoint),
                    to: request)),
            Example(
                "traced, nothing known, empty log",
                answer(LogVerifyResult.traced(imageHash: raw, chain: [], checkpoint: nil), to: request)),
            Example("the reference editing plugin's record", Message(claim, correlationID: claimID.text)),
            Example("a record without dimensions", Message(reclaim)),
            Example(
                "recorded",
                answer(
                    ModificationResult(recorded: claimID.text, finalImageHash: edited, modificationLevel: 2),
                    to: claimID)),
            Example("already claimed", answer(ModificationResult(reason: .alreadyClaimed), to: claimID)),
            Example(
                "not found",
                answer(LogVerifyResult.notFound(imageHash: processed, checkpoint: checkpoint), to: request)),
            Example(
                "consistent",
                answer(LogVerifyResult.consistent(oldTreeSize: 3, checkpoint: checkpoint, proof: consistency), to: request)),
            Example(
                "rejected",
                answer(LogVerifyResult.rejected(query: .consistency, reason: .unknownTreeSize), to: request)),
        ]
    }

    static func privacy() throws -> [Example] {
        let seed = try SecureRandom.bytes(32)
        let request = id()
        func result(_ action: PrivacyRequest.Action, _ status: PrivacyResult.Status) -> Message<PrivacyResult> {
            answer(
                PrivacyResult(
                    service: "authority", instance: "host-1", action: action, subjectType: .deviceSerial,
                    status: status),
                to: request)
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
        // Every service that refuses a message on the requests topic answers it, one with no
        // action or subject type to read (an admin command there) too.
        let refused = answer(
            PrivacyResult(
                service: "signer", instance: "host-1", action: nil, subjectType: nil, status: .rejected,
                reason: .malformed),
            to: request)
        let first = try Message(
            chaining: AuditRecord(
                service: "authority", after: nil, occurredAt: now(),
                actor: .operator, actorKeyID: "ops-1", action: .blacklist, subjectType: .deviceSerial,
                subjectIndex: try hex(32), outcome: .succeeded),
            id: id(), requestID: id())
        let second = try Message(
            chaining: AuditRecord(
                service: "authority", after: first.body, occurredAt: now(),
                actor: .service, actorKeyID: nil, action: .retireTable, subjectType: .tableID,
                subjectIndex: nil, tableID: 12, outcome: .succeeded),
            id: id(), requestID: nil)
        return [
            Example(
                "export",
                try Message(
                    PrivacyRequest(action: .export, subjectType: .deviceSerial, subject: "CAM-0001", reason: "ticket 42")
                ).signed(keyID: "ops-1", seed: seed)),
            Example(
                "erase a session",
                try Message(PrivacyRequest(action: .erase, subjectType: .sessionID, subject: UUID().uuidString))
                    .signed(keyID: "ops-1", seed: seed)),
            Example("export", export), Example("erase", erase), Example("not found", result(.export, .notFound)),
            Example("rejected", rejected), Example("refused, nothing to read", refused),
            Example("first", first), Example("second", second),
        ]
    }
}
