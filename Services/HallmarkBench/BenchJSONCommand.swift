import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// `hallmark bench json`: Hallmark's message coding against Foundation's, side by side on one
/// thread, for the aggregator's hottest messages. Reading: `JSONDecoder` on the bytes against
/// `JSONReader` plus `JSONCoding.decode(_:from: JSONValue)` (a stage parses once, for
/// the envelope and the schema check, and decodes that). Writing: `JSONEncoder` (sorted keys)
/// against ``JSONCoding/encode(_:)``. Schema checks: ``JSONSchema/validate(_:)`` of a parsed
/// message beside the parse. Build with `-c release`.
package struct BenchJSONCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "json", abstract: "Measure message reading and writing: Hallmark's coding against JSONDecoder/JSONEncoder.")

    @Option(help: "Seconds per measurement per round.") var seconds = 0.5
    @Option(help: "Rounds; they alternate which coder goes first, and the best round of each counts.") var rounds = 3

    package init() {}

    package func run() throws {
        let hash = String(repeating: "ab", count: 32)
        let token = BirthmarkToken.mobile(
            BirthmarkMobileToken(
                encryptedNucToken: Base64.encode(Data(repeating: 7, count: 92)),
                tableReferences: [1, 2, 3], keyIndices: [4, 5, 6]))
        let submission = Message(
            Submission(imageHashes: [.init(imageHash: hash, modificationLevel: 0)], token: token, timestamp: 1_760_000_000))
        let request = Message(
            TokenRequest(token: token), correlationID: MessageID.random().text, replyTo: TopicCatalogue.tokenResults.name)
        let checkpoint = SignedCheckpoint(
            treeSize: 1_000_000, rootHash: hash, timestamp: 1_760_000_000,
            signature: Base64.encode(Data(repeating: 1, count: 64)), keyID: String(repeating: "cd", count: 32))
        let found = Message(
            LogVerifyResult.found(
                record: .init(imageHash: hash, timestamp: 1_760_000_000, modificationLevel: 0),
                leafIndex: 123_456, checkpoint: checkpoint, proof: Array(repeating: hash, count: 20)),
            correlationID: MessageID.random().text, requestID: .random())
        let accepted = Message(
            SubmissionResult(leaves: [.init(imageHash: hash, leafIndex: 123_456, status: .appended)], treeSize: 123_457),
            correlationID: MessageID.random().text, requestID: .random())
        print("message coding, one thread, messages/s (Foundation | Hallmark | ratio)")
        try compare(read: submission, "read  hallmark.submission.v1")
        try compare(
            read: Message(LogVerifyRequest(imageHash: hash)),
            "read  hallmark.log.verify.request.v1")
        try compare(write: request, "write hallmark.token.request.v1")
        try compare(write: accepted, "write hallmark.submission.result.v1")
        try compare(write: found, "write hallmark.log.verify.result.v1 (found)")
        print("schema checks, one thread, messages/s (parse | check | check/parse)")
        try check(request, "check hallmark.token.request.v1")
        try check(submission, "check hallmark.submission.v1")
        try check(found, "check hallmark.log.verify.result.v1 (found)")
        print("the edge's camera bundle, one thread, bundles/s (parse | parse, check, write and key as published | ratio)")
        try edgeBundle(submission.body, "flat bundle (the reference camera's)", flat: true)
        try edgeBundle(submission.body, "hallmark body (the mobile app's)", flat: false)
        let threads = ProcessInfo.processInfo.activeProcessorCount
        print("schema checks, messages/s (one thread | \(threads) threads at once | ratio, \(threads)× if nothing is shared)")
        try checkAcross(threads: threads, request, "check hallmark.token.request.v1")
    }

    /// Threads share one compiled schema, as a stage's workers do: the rate of `threads`
    /// threads checking at once (each its own parsed copy of the message, as each worker has
    /// its own messages) beside one thread's. Anything the threads write in common, such as a
    /// reference count, keeps the ratio below `threads`.
    private func checkAcross<T: Encodable>(threads: Int, _ value: T, _ label: String) throws {
        let bytes = try JSONCoding.encode(value)
        let parsed = try JSONReader.parse(bytes)
        guard let name = parsed.object?["schema"]?.string, let schema = MessageSchemas.schema(name) else {
            throw BenchError("\(label): no schema")
        }
        // Calls that take about `seconds` on one thread; then the same on every thread.
        let calls = Int(max(1000, try best([{ _ = schema.validate(parsed) }])[0] * seconds))
        var one = 0.0, many = 0.0
        for _ in 0..<max(1, rounds) {
            for n in [1, threads] {
                let copies = try (0..<n).map { _ in try JSONReader.parse(bytes) }
                let start = ContinuousClock.now
                DispatchQueue.concurrentPerform(iterations: n) { k in
                    for _ in 0..<calls where schema.validate(copies[k]) != nil {
                        preconditionFailure("\(label) broke its schema")
                    }
                }
                let rate = Double(n * calls) / (ContinuousClock.now - start).seconds
                if n == 1 { one = max(one, rate) } else { many = max(many, rate) }
            }
        }
        report(label, one, many)
    }

    /// A stage parses each message once and checks the parsed value against its schema (the
    /// authority each item of a carrier, the edge each bundle it writes): the check's rate
    /// beside the parse's, which it follows.
    private func check<T: Encodable>(_ value: T, _ label: String) throws {
        let bytes = try JSONCoding.encode(value)
        let parsed = try JSONReader.parse(bytes)
        guard let name = parsed.object?["schema"]?.string, let schema = MessageSchemas.schema(name) else {
            throw BenchError("\(label): no schema")
        }
        if let violation = schema.validate(parsed) { throw BenchError("\(label): \(violation)") }
        let r = try best([{ _ = try JSONReader.parse(bytes) }, { _ = schema.validate(parsed) }])
        report(label, r[0], r[1])
    }

    /// What the edge does with each camera's POST (`CameraBundle.written`: read leniently,
    /// write strictly, name the receipt, check the schema, write the message; and the message's
    /// Kafka key) beside the parse it begins with.
    private func edgeBundle(_ submission: Submission, _ label: String, flat: Bool) throws {
        var body = try JSONCoding.encode(submission)
        if flat, var object = try JSONReader.parse(body).object, let entry = submission.entries.first {
            // The reference Raspberry Pi's flat bundle: one hash at the top level, a device signature.
            object["image_hashes"] = nil
            object["image_hash"] = .string(entry.imageHash)
            object["modification_level"] = .number("0")
            object["device_signature"] = .string(Base64.encode(Data(repeating: 3, count: 64)))
            body = JSONWriter.write(.object(object))
        }
        guard try CameraBundle.written(body).message.body.captureKey != nil else { throw BenchError("\(label): no key") }
        // With its Kafka key, which the edge also makes of every bundle.
        let r = try best([{ _ = try JSONReader.parse(body) }, { _ = try CameraBundle.written(body).message.body.captureKey }])
        report(label, r[0], r[1])
    }

    private func compare<T: Codable>(read value: T, _ label: String) throws {
        let bytes = try JSONCoding.encode(value)
        let data = Data(bytes)
        let parsed = try JSONReader.parse(bytes)
        let r = try best([
            { _ = try JSONDecoder().decode(T.self, from: data) },
            { _ = try JSONCoding.decode(T.self, from: try JSONReader.parse(bytes)) },
            // What a stage adds: it has parsed the message already, for the envelope and the schema.
            { _ = try JSONCoding.decode(T.self, from: parsed) },
        ])
        report(label, r[0], r[1])
        report("  decode of the parsed value alone", r[0], r[2])
    }

    private func compare<T: Encodable>(write value: T, _ label: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard try Array(encoder.encode(value)) == JSONCoding.encode(value) else { throw BenchError("\(label): the bytes differ") }
        let r = try best([{ _ = try encoder.encode(value) }, { _ = try JSONCoding.encode(value) }])
        report(label, r[0], r[1])
    }

    /// Messages per second of each contender, the best of `rounds` rounds whose order alternates
    /// (so both see the same machine conditions).
    private func best(_ contenders: [() throws -> Void]) throws -> [Double] {
        var best = [Double](repeating: 0, count: contenders.count)
        for round in 0..<max(1, rounds) {
            let order = round.isMultiple(of: 2) ? Array(contenders.indices) : contenders.indices.reversed()
            for i in order {
                let rate = try OperationRate.measure(for: .milliseconds(Int(seconds * 1000)), perCall: 100) {
                    for _ in 0..<100 { try contenders[i]() }
                }
                best[i] = max(best[i], rate)
            }
        }
        return best
    }

    private func report(_ label: String, _ theirs: Double, _ ours: Double) {
        let pad = label.padding(toLength: 44, withPad: " ", startingAt: 0)
        print("  \(pad) \(String(format: "%9.0f | %9.0f | %5.2f×", theirs, ours, ours / max(theirs, 1e-9)))")
    }
}
