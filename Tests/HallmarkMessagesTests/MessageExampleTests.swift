import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Every message type's examples are valid as Hallmark writes them, and every document derived
/// from them by breaking one rule of the schema is refused.
@Suite(.timeLimit(.minutes(5)))
struct MessageExampleTests {
    static func schema(_ name: String) throws -> JSONSchema { try #require(MessageSchemas.schema(name)) }
    static func document(_ name: String) throws -> JSONValue {
        try #require(MessageSchemas.bundled(name))
    }

    @Test func everySchemaHasExamplesAndEveryExampleIsValidAndRoundTrips() throws {
        let examples = try MessageExamples.all()
        #expect(Set(examples.map(\.schema)) == Set(MessageTypes.all.map { $0.schemaName }))
        for example in examples {
            let bytes = try example.bytes()
            let violation = try Self.schema(example.schema).validate(try JSONReader.parse(bytes))
            #expect(violation == nil, "\(example.schema) (\(example.what)): \(violation?.description ?? "")")
            let type = Swift.type(of: example.message)
            let decoded = try JSONCoding.decode(type, from: bytes)
            #expect(try JSONCoding.encode(decoded) == bytes, "\(example.schema) (\(example.what)) round trip")
        }
    }

    @Test func everyDerivedViolationIsRefused() throws {
        var total = 0
        for example in try MessageExamples.all() {
            let schema = try Self.schema(example.schema)
            let cases = SchemaViolations.derive(schema: try Self.document(example.schema), example: try example.json())
            #expect(cases.count >= 10, "\(example.schema) (\(example.what)): only \(cases.count) derivations")
            for c in cases where schema.validate(c.document) == nil {
                Issue.record("\(example.schema) (\(example.what)) accepts \(c.rule)")
            }
            total += cases.count
        }
        #expect(total > 1000)
    }

    @Test func derivationsCoverEveryKindOfRule() throws {
        let example = try #require(try MessageExamples.of(SignRequest.schemaName).first)
        let rules = SchemaViolations.derive(schema: try Self.document(SignRequest.schemaName), example: try example.json())
            .map(\.rule)
        for expected in [
            "$.headers: required", "$.x_unknown: additionalProperties", "$.body_b64: pattern",
            "$.body_b64: contentEncoding base64 (YQ===)", "$.produced_at: format date-time (2025-02-30T00:00:00Z)",
            "$.headers: maxProperties", "$.headers.bad name: propertyNames", "$.method: maxLength", "$.method: minLength",
            "$.correlation_id: pattern (a NUL)", "$.id: format uuid", "$.schema: enum/const", "$: type",
            "$.reply_to: maxLength", "$.path: pattern",
        ] {
            #expect(rules.contains { $0.hasPrefix(expected) }, "no \(expected)")
        }
        let token = try #require(try MessageExamples.of(TokenRequest.schemaName).first { $0.what == "mobile token" })
        let tokenRules = SchemaViolations.derive(schema: try Self.document(TokenRequest.schemaName), example: try token.json())
            .map(\.rule)
        for expected in [
            "$.table_references: uniqueItems", "$.table_references[0]: maximum", "$.key_indices: maxItems",
            "$.table_references: minItems", "$.key_indices[0]: type (a fraction)",
        ] {
            #expect(tokenRules.contains { $0.hasPrefix(expected) }, "no \(expected)")
        }
    }

    /// The inputs issue #10 §3 found accepted, each refused by its schema now.
    @Test func theLooseInputsOfIssue10AreRefused() throws {
        func refused(
            _ schemaName: String, _ what: String, _ change: (inout [String: JSONValue]) -> Void,
            example index: Int = 0
        ) throws {
            let example = try MessageExamples.of(schemaName)[index]
            guard case .object(var members) = try example.json() else { throw HarnessError("not an object") }
            change(&members)
            #expect(try Self.schema(schemaName).validate(.object(members)) != nil, "\(schemaName): \(what)")
        }
        for name in [
            SignRequest.schemaName, ProvisionRequest.schemaName, AdminCommand.schemaName, TokenRequest.schemaName,
            VerifyRequest.schemaName,
        ] {
            try refused(name, "an extra top-level field") { $0["extra"] = .string("x") }
        }
        try refused(ProvisionRequest.schemaName, "an image hash") {
            $0["image_hash"] = .string(String(repeating: "a", count: 64))
        }
        try refused(ProvisionRequest.schemaName, "upper-case nuc_hash") {
            $0["nuc_hash"] = .string(String(repeating: "A", count: 64))
        }
        try refused(TokenRequest.schemaName, "upper-case token hex") {
            if case .object(var token) = $0["camera_token"], let nonce = token["nonce"]?.string {
                token["nonce"] = .string(nonce.uppercased() == nonce ? "ABCDEF" + nonce.dropFirst(6) : nonce.uppercased())
                $0["camera_token"] = .object(token)
            }
        }
        try refused(SignRequest.schemaName, "body_b64 YQ===") { $0["body_b64"] = .string("YQ===") }
        for bad in ["2025-02-30T00:00:00.000Z", "0000-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "2025-01-01T00:00:00+05:30"] {
            try refused(SignRequest.schemaName, "produced_at \(bad)") { $0["produced_at"] = .string(bad) }
            try refused(SignRequest.schemaName, "timestamp \(bad)") { $0["timestamp"] = .string(bad) }
        }
        try refused(VerifyRequest.schemaName, "method \"\"") { $0["method"] = .string("") }
        try refused(SignRequest.schemaName, "method \"\"") { $0["method"] = .string("") }
        try refused(
            TokenRequest.schemaName, "table_references [3,3,3]",
            { $0["table_references"] = .array([.number("3"), .number("3"), .number("3")]) },
            example: 1)
        let long = String(repeating: "p", count: 100_000)
        try refused(VerifyRequest.schemaName, "a 100 KB partner id") {
            $0["headers"] = .object(["SmileID-Partner-ID": .string(long)])
        }
        try refused(VerifyRequest.schemaName, "a NUL in a partner id") {
            $0["headers"] = .object(["SmileID-Partner-ID": .string("00\u{0}2")])
        }
        try refused(ProvisionRequest.schemaName, "a NUL in device_family") { $0["device_family"] = .string("Pi\u{0}HQ") }
        try refused(ProvisionRequest.schemaName, "a NUL in device_serial") { $0["device_serial"] = .string("CAM\u{0}1") }
        try refused(AdminCommand.schemaName, "a control character in reason") { $0["reason"] = .string("a\u{1B}[31m") }
        try refused(AdminCommand.schemaName, "a 201-character reason") {
            $0["reason"] = .string(String(repeating: "r", count: 201))
        }
    }

    @Test func theFourSubmissionBodiesAreTellApartAndMixturesRefused() throws {
        let schema = try Self.schema(Submission.schemaName)
        let examples = try MessageExamples.of(Submission.schemaName)
        #expect(Set(examples.map { ($0.message as! Message<Submission>).shape }) == Set(Submission.Shape.allCases))
        let flat = try #require(examples.first { ($0.message as! Message<Submission>).shape == .flatBundle })
        let camera = try #require(examples.first { ($0.message as! Message<Submission>).shape == .cameraSubmission })
        guard case .object(let f) = try flat.json(), case .object(let c) = try camera.json() else { return }
        // A reference camera sends `parent_image_hash: null` for a raw capture.
        var withNull = c
        if case .array(var entries) = c["image_hashes"], case .object(var first) = entries[0] {
            first["parent_image_hash"] = .null
            entries[0] = .object(first)
            withNull["image_hashes"] = .array(entries)
        }
        #expect(schema.validate(.object(withNull)) == nil)
        var mixed = f
        mixed["image_hashes"] = c["image_hashes"]
        #expect(schema.validate(.object(mixed)) != nil, "flat bundle with image_hashes")
        var twoTokens = c
        twoTokens["encrypted_nuc_token"] = f["encrypted_nuc_token"]
        twoTokens["table_references"] = f["table_references"]
        twoTokens["key_indices"] = f["key_indices"]
        #expect(schema.validate(.object(twoTokens)) != nil, "two tokens")
        var noCert = c
        noCert["manufacturer_cert"] = nil
        #expect(schema.validate(.object(noCert)) != nil, "CameraSubmission without manufacturer_cert")
        var signatureOnOwn = c
        signatureOnOwn["submission_type"] = nil
        signatureOnOwn["manufacturer_cert"] = nil
        #expect(schema.validate(.object(signatureOnOwn)) == nil, "Hallmark's own body")
        signatureOnOwn["device_signature"] = f["device_signature"]
        #expect(schema.validate(.object(signatureOnOwn)) != nil, "a device signature outside the flat bundle")
        // A certificate bundle is one hash and a certificate, with no token, level or parent.
        let certified = try #require(examples.first { ($0.message as! Message<Submission>).shape == .certificateBundle })
        guard case .object(let cb) = try certified.json() else { return }
        for (member, value) in [
            ("encrypted_nuc_token", f["encrypted_nuc_token"]), ("camera_token", c["camera_token"]),
            ("modification_level", .number("0")), ("parent_image_hash", cb["image_hash"]),
            ("device_signature", f["device_signature"]), ("image_hashes", c["image_hashes"]),
        ] {
            var mixed = cb
            mixed[member] = value
            #expect(schema.validate(.object(mixed)) != nil, "a certificate bundle with \(member)")
        }
        for member in ["camera_cert", "bundle_signature", "image_hash"] {
            var missing = cb
            missing[member] = nil
            #expect(schema.validate(.object(missing)) != nil, "a certificate bundle without \(member)")
        }
        var certOnFlat = f
        certOnFlat["camera_cert"] = cb["camera_cert"]
        #expect(schema.validate(.object(certOnFlat)) != nil, "a flat bundle with a certificate")
    }
}
