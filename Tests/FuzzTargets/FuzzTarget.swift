/// One libFuzzer target: a decoder family, the properties every input must keep, the seeds its
/// corpus starts from and the tokens of its format.
///
/// The targets live in this library, built with the normal suite, so that `FuzzCorpusTests`
/// replays every committed corpus input through them; `hallmark-fuzz` (built only by
/// `deploy/local/fuzz`, with `-sanitize=fuzzer,address`) hands them libFuzzer's inputs.
public struct FuzzTarget: Sendable {
    /// The name `deploy/local/fuzz` and `HALLMARK_FUZZ_TARGET` select it by.
    public let name: String
    /// What it feeds and what it checks, one line.
    public let summary: String
    /// Runs one input. A broken property throws ``FuzzFinding``; a crash, trap or sanitizer
    /// report is a finding too.
    public let run: @Sendable ([UInt8]) throws(FuzzFinding) -> Void
    /// Valid inputs the corpus starts from: DESIGN vectors and the tests' fixtures.
    public let seeds: @Sendable () throws -> [[UInt8]]
    /// Tokens of the format, for libFuzzer's `-dict`.
    public let dictionary: [String]

    public init(
        name: String, summary: String, run: @escaping @Sendable ([UInt8]) throws(FuzzFinding) -> Void,
        seeds: @escaping @Sendable () throws -> [[UInt8]], dictionary: [String]
    ) {
        self.name = name
        self.summary = summary
        self.run = run
        self.seeds = seeds
        self.dictionary = dictionary
    }

    /// Every target, in the order `deploy/local/fuzz` runs them.
    public static let all: [FuzzTarget] = [
        .json, .encoding, .merkle, .sign1, .zip, .enc1, .e2ee,
        .signerMessages, .authorityMessages, .gatewayMessages, .aggregatorMessages, .notes, .edgeBundles,
    ]

    /// The target called `name`.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The dictionary in libFuzzer's format: one quoted token per line, bytes outside
    /// printable ASCII (and `"`, `\`) as `\xNN`.
    public var dictionaryFile: String {
        dictionary.map { token in
            "\""
                + token.utf8.map { b in
                    (0x20..<0x7F).contains(b) && b != 0x22 && b != 0x5C ? String(UnicodeScalar(b)) : "\\x" + hex(b)
                }.joined() + "\""
        }.joined(separator: "\n") + "\n"
    }

    private func hex(_ b: UInt8) -> String { String(b >> 4, radix: 16).uppercased() + String(b & 15, radix: 16).uppercased() }
}
