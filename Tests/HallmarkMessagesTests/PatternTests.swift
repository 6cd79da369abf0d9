import Foundation
import Testing

@testable import HallmarkCore

/// The pattern engine: ECMA-262 semantics for the supported subset, refusal of the rest, and
/// linear time on long inputs.
@Suite(.timeLimit(.minutes(2)))
struct PatternTests {
    func matches(_ source: String, _ text: String) throws -> Bool { try Pattern(source).matches(text) }

    @Test(arguments: [
        // (pattern, text, matches)
        ("^abc$", "abc", true), ("^abc$", "abcd", false), ("^abc$", "xabc", false), ("^abc$", "", false),
        ("abc", "xxabcxx", true), ("abc", "ab", false), ("^ab", "abx", true), ("^ab", "xab", false),
        ("ab$", "xab", true), ("ab$", "abx", false), ("^$", "", true), ("^$", "a", false), ("", "anything", true),
        ("^[a-f0-9]{4}$", "09af", true), ("^[a-f0-9]{4}$", "09aF", false), ("^[a-f0-9]{4}$", "09a", false),
        ("^[^a-c]+$", "xyz", true), ("^[^a-c]+$", "xbz", false), ("^[-a]+$", "a-a", true), ("^[a-]+$", "-", true),
        ("^[]$", "a", false), ("^[^]$", "\n", true), ("^[\\]a]+$", "]a", true), ("^[\\-]$", "-", true),
        ("^\\d+$", "0123", true), ("^\\d+$", "12a", false), ("^\\w+$", "a_Z9", true), ("^\\w+$", "a-b", false),
        ("^\\s$", "\u{3000}", true), ("^\\s$", "\u{2005}", true), ("^\\s$", "x", false), ("^\\t\\n\\r$", "\t\n\r", true),
        ("^\\x41\\u00e9$", "A\u{E9}", true), ("^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\/\\\\$", ".*+?()[]{}|^$/\\", true),
        ("^.$", "\u{1F600}", true), ("^.$", "\n", false), ("^.$", "\u{2028}", false), ("^..$", "\u{1F600}", false),
        ("^(?:ab|cd)+$", "abcdab", true), ("^(?:ab|cd)+$", "abc", false), ("^(a|b)c$", "bc", true), ("a|b", "xbx", true),
        ("^a{2}$", "aa", true), ("^a{2}$", "aaa", false), ("^a{2,}$", "aaaa", true), ("^a{2,}$", "a", false),
        ("^a{1,3}$", "aaa", true), ("^a{1,3}$", "aaaa", false), ("^a{0,1}b$", "b", true), ("^a?b$", "ab", true),
        ("^a*?b$", "aab", true), ("^a+?$", "aa", true), ("^(?:a*)*$", "aaaa", true), ("^(?:a|ab)(?:c|bcd)$", "abcd", true),
        ("^[\\u0100-\\u017f]+$", "\u{101}\u{17F}", true), ("^[\\u0100-\\u017f]+$", "a", false),
        ("^[^\\x00-\\x1f\\x7f-\\x9f]*$", "tab\tno", false), ("^[^\\x00-\\x1f\\x7f-\\x9f]*$", "caf\u{E9}", true),
        ("^[^\\x00-\\x1f\\x7f-\\x9f]*$", "x\u{85}", false), ("^[^\\x00-\\x1f\\x7f-\\x9f]*$", "a\u{0}b", false),
        ("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", "SmileID-Request-Mac", true), ("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", "a b", false),
        ("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", "a:b", false),
        // `^[set]{min,max}$` goes byte by byte while the text is ASCII: scalars, not bytes, count.
        ("^[a-z\\u00e9]{1,3}$", "ab\u{E9}", true), ("^[a-z\\u00e9]{1,3}$", "abc\u{E9}", false),
        ("^[^x]{2}$", "\u{E9}\u{E9}", true), ("^[^x]{2}$", "a\u{1F600}", true), ("^[^x]{2}$", "ax\u{E9}", false),
    ])
    func matchesAsECMA262(_ pattern: String, _ text: String, _ expected: Bool) throws {
        #expect(try matches(pattern, text) == expected, "\(pattern) on \(text.debugDescription)")
        // The DFA (over scalars, and over ASCII bytes) answers as the simulation does, on the
        // text and on a long repetition of it.
        let p = try Pattern(pattern)
        for input in [text, String(repeating: text, count: 70)] {
            let simulated = p.run(input.unicodeScalars)
            var dfa = LazyDFA(p)
            #expect(dfa.run(input.unicodeScalars) == simulated, "\(pattern) on \(input.debugDescription)")
            var bytes = LazyDFA(p), copy = input
            if let ascii = copy.withUTF8({ bytes.runASCII($0) }) { #expect(ascii == simulated) }
        }
        #expect(p.run(text.unicodeScalars) == expected)
    }

    @Test(arguments: [
        "(?=a)", "(?!a)", "(?<=a)", "(?<n>a)", "\\1", "\\b", "\\B", "\\D", "\\W", "\\S", "\\p{L}", "\\cA", "\\0",
        "a**", "a+*", "*a", "+", "?", "{2}", "a{2", "a{3,2}", "a{1001}", "(a", "a)", "[a", "[z-a]", "[\\d-z]", "^a|b",
        "a|b$", "^(?:a)|b$", "a$b", "a^b", "(a$)", "\\uD800", "\\x4", "\\", "a{,3}",
    ])
    func refusesUnsupportedSyntax(_ pattern: String) {
        #expect(throws: PatternError.self, "\(pattern)") { try Pattern(pattern) }
    }

    @Test func canonicalBase64OfOneMebibyteIsCheckedInWellUnder100ms() throws {
        let b = "A-Za-z0-9+/"
        let pattern = try Pattern("^(?:[\(b)]{4})*(?:[\(b)][AQgw]==|[\(b)]{2}[AEIMQUYcgkosw048]=)?$")
        let valid = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }).base64EncodedString()
        let invalidEnd = String(valid.dropLast(2)) + "R="  // one byte short of canonical
        let nonASCII = "\u{E9}" + valid  // refused at once, then on the scalar path
        for (text, expected) in [(valid, true), (invalidEnd, false), (nonASCII, false)] {
            var best = Duration.seconds(10)
            for _ in 0..<3 {
                let start = ContinuousClock.now
                #expect(pattern.matches(text) == expected)
                best = min(best, ContinuousClock.now - start)
            }
            // 1.4 MB each; a debug build included.
            #expect(best < .milliseconds(100), "\(best)")
        }
    }

    @Test func concurrentMatchesShareOneDFAAndAgreeWithTheSimulation() async throws {
        let p = try Pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$")
        let inputs = [
            "2025-01-01T00:00:00Z", "2025-01-01T00:00:00.123456789Z", "2025-01-01T00:00:00.Z", "2025-01-01t00:00:00Z",
            "2025-01-01T00:00:00+05:30", "99999-01-01T00:00:00Z", "2025-01-01T00:00:00.1234567890Z", "",
        ]
        let disagreements = await withTaskGroup(of: Int.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for i in 0..<400 {
                        let text = inputs[(i + t) % inputs.count]
                        if p.matches(text) != p.run(text.unicodeScalars) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(disagreements == 0)
        #expect(p.matches("2025-01-01T00:00:00.5Z") && !p.matches("2025-01-01T00:00:00.5z"))
    }

    @Test func longInputsWithManyStatesFallBackToTheSimulation() throws {
        // `(a|b)*a(a|b){9}`-like patterns have 2^10 DFA states: the DFA gives up, the answer stands.
        let p = try Pattern("^(?:a|b)*a(?:a|b){11}$")
        let text = String((0..<5000).map { _ in Bool.random() ? "a" : "b" })
        let expected = Array(text)[text.count - 12] == "a"
        #expect(p.matches(text) == expected)
        #expect(p.run(text.unicodeScalars) == expected)
    }
}
