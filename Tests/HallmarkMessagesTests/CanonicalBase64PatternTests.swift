import Foundation
import HallmarkMessages
import HallmarkTestSupport
import Testing

@testable import HallmarkCore

/// The schemas' canonical-base64 `pattern` and the `contentEncoding: base64` check accept the
/// same strings, which is why the compiler runs the check alone where both are given.
@Suite(.timeLimit(.minutes(2)))
struct CanonicalBase64PatternTests {
    /// Every string of up to five characters over an alphabet that holds each case of the
    /// pattern (the padding-compatible final characters and others, `=`, a non-base64 ASCII
    /// character and a non-ASCII one).
    @Test func patternAndCheckAgreeOnEveryShortString() throws {
        let pattern = try Pattern(Pattern.canonicalBase64)
        let alphabet: [String] = ["A", "Q", "g", "w", "E", "Y", "+", "/", "0", "=", "-", "\u{E9}"]
        var strings = [""]
        var checked = 0
        for _ in 0..<5 {
            strings = strings.flatMap { s in alphabet.map { s + $0 } }
            for s in strings {
                #expect(pattern.matches(s) == Base64Check.isCanonical(s), "\(s.debugDescription)")
                checked += 1
            }
        }
        #expect(checked > 250_000)
    }

    /// Long encodings of every length and final byte, each also with one character changed.
    @Test func patternAndCheckAgreeOnLongMutatedEncodings() throws {
        let pattern = try Pattern(Pattern.canonicalBase64)
        var generator = SystemRandomNumberGenerator()
        let replacements: [Character] = ["=", "-", "R", "A", "\n", "\u{E9}", "Q", "_"]
        var accepted = 0
        for length in 90..<130 {
            let valid = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
            var variants = [valid]
            for _ in 0..<6 {
                var characters = Array(valid)
                characters[Int.random(in: characters.indices, using: &generator)] = replacements.randomElement()!
                variants.append(String(characters))
            }
            for s in variants {
                #expect(pattern.matches(s) == Base64Check.isCanonical(s), "\(s.debugDescription)")
                if Base64Check.isCanonical(s) { accepted += 1 }
            }
        }
        #expect(accepted >= 40)
    }

    /// `body_b64`'s two checks become one, and a bad body is still refused for what it is.
    @Test func theCompilerKeepsOnlyTheContentEncodingCheck() throws {
        let checks: [SchemaNode.Check] = [.base64, .length(min: 0, max: 16), .pattern(try Pattern(Pattern.canonicalBase64))]
        let kept = SchemaCompiler.withoutRepeatedBase64(checks)
        #expect(kept.count == 2)
        #expect(!kept.contains { if case .pattern = $0 { true } else { false } })
        // Another pattern stays, and so does one that comes before the check.
        let other = try Pattern("^[A-Z]*$")
        #expect(SchemaCompiler.withoutRepeatedBase64([.base64, .pattern(other)]).count == 2)
        #expect(SchemaCompiler.withoutRepeatedBase64([.pattern(try Pattern(Pattern.canonicalBase64)), .base64]).count == 2)
    }

    @Test(arguments: ["YQ===", "YR==", "YQ", "Y\u{E9}Q=", "YQ==\n"])
    func aBadBodyIsRefusedAsBefore(_ body: String) throws {
        let example = try MessageExamples.of(SignRequest.schemaName)[0]
        guard case .object(var members) = try example.json() else { throw HarnessError("not an object") }
        let schema = try #require(MessageSchemas.schema(SignRequest.schemaName))
        #expect(schema.validate(.object(members)) == nil)
        members["body_b64"] = .string(body)
        #expect(
            schema.validate(.object(members)) == SchemaViolation(path: "$.body_b64", reason: "is not canonical padded base64"))
    }
}
