import Foundation
import HallmarkFuzzTargets
import Testing

/// Every committed corpus input (`Tests/Fuzz/Corpus/<target>/`, minimised by
/// `deploy/local/fuzz --merge`) and every seed goes through its target again, without the
/// sanitizers: a regression in a decoder the fuzzers once passed fails here, in the normal
/// suite, whether or not anyone runs the fuzzers.
@Suite("Fuzz corpora", .serialized, .timeLimit(.minutes(10)))
struct FuzzCorpusTests {
    /// Runs `work` on a thread of its own: targets (and seeds) wait for async work the way
    /// libFuzzer's thread does, which must not happen on the cooperative pool.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// What each input that breaks its target broke.
    static func failures(
        _ target: FuzzTarget, _ inputs: @escaping @Sendable () throws -> [(name: String, bytes: [UInt8])]
    ) async throws -> [String] {
        try await onThread {
            try inputs().compactMap { input in
                do { try target.run(input.bytes) } catch { return "\(target.name)/\(input.name): \(error)" }
                return nil
            }
        }
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpus.appendingPathComponent(target.name)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        return try names.map { ($0, Array(try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }

    @Test("every target has a committed corpus", arguments: FuzzTarget.all.map(\.name))
    func corpusExists(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        #expect(try Self.inputs(target).count >= 3, "run deploy/local/fuzz --merge \(name)")
    }

    @Test("the committed corpus passes its target", arguments: FuzzTarget.all.map(\.name))
    func corpusPasses(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        #expect(try await Self.failures(target) { try Self.inputs(target) } == [])
    }

    @Test("the seeds pass their target", arguments: FuzzTarget.all.map(\.name))
    func seedsPass(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = try await Self.onThread { try target.seeds() }
        #expect(!seeds.isEmpty)
        #expect(try await Self.failures(target) { seeds.enumerated().map { ("seed \($0.offset)", $0.element) } } == [])
    }

    /// Mutations tried per target: a few seconds each in a debug build, the same inputs on every
    /// machine (docs/fuzzing.md, "CI").
    static let mutations = 5_000

    @Test("seeded mutations of the corpus pass their target", arguments: FuzzTarget.all.map(\.name))
    func mutationsPass(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        let corpus = try Self.inputs(target).map(\.bytes) + (try await Self.onThread { try target.seeds() })
        // The seed is the target's name, so adding a target leaves the others' inputs alone.
        let seed = name.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 }
        let failures = try await Self.failures(target) {
            var mutator = SeededMutator(inputs: corpus, dictionary: target.dictionary, seed: seed)
            return (0..<Self.mutations).map { i in
                let bytes = mutator.nextInput()
                return (
                    "mutation \(i) (\(bytes.count) bytes, hex \(bytes.prefix(64).map { String(format: "%02x", $0) }.joined()))",
                    bytes
                )
            }
        }
        #expect(failures == [])
    }

    @Test("the mutator makes the same inputs from the same seed, and changes them")
    func mutatorIsDeterministic() {
        let inputs: [[UInt8]] = [Array(#"{"a":[1,2,3]}"#.utf8), Array("PK\u{3}\u{4}".utf8)]
        var a = SeededMutator(inputs: inputs, dictionary: ["true"], seed: 7)
        var b = SeededMutator(inputs: inputs, dictionary: ["true"], seed: 7)
        let first = (0..<500).map { _ in a.nextInput() }
        #expect(first == (0..<500).map { _ in b.nextInput() })
        #expect(Set(first).count > 400)
        #expect(first.contains { !inputs.contains($0) })
    }

    @Test("target names are unique and dictionaries are libFuzzer's format")
    func namesAndDictionaries() {
        #expect(Set(FuzzTarget.all.map(\.name)).count == FuzzTarget.all.count)
        for target in FuzzTarget.all {
            for line in target.dictionaryFile.split(separator: "\n") {
                #expect(line.hasPrefix("\"") && line.hasSuffix("\"") && line.count >= 3, "\(target.name): \(line)")
                #expect(line.utf8.allSatisfy { (0x20..<0x7F).contains($0) }, "\(target.name): \(line)")
            }
        }
    }
}
