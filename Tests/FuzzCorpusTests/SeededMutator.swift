import HallmarkTestSupport

/// Mutations of corpus inputs from a fixed seed, the way libFuzzer's mutators make them (bit
/// flips, interesting bytes, inserts, erases, copies, splices, dictionary tokens), without
/// libFuzzer: the normal suite runs them through every target, so every commit tries the same
/// few thousand inputs near the corpus on its own build. Coverage-guided search, and the
/// sanitizers, are `deploy/local/fuzz`'s.
struct SeededMutator: Sendable {
    private var random: SplitMix64
    private let pool: [[UInt8]]
    private let tokens: [[UInt8]]
    /// Inputs never grow past this (libFuzzer's `-max_len` in CI).
    let maxLength: Int

    /// Mutates `inputs` (not empty), with `dictionary`'s tokens, from `seed`.
    init(inputs: [[UInt8]], dictionary: [String], seed: UInt64, maxLength: Int = 65_536) {
        precondition(!inputs.isEmpty, "a mutator needs at least one input")
        random = SplitMix64(seed: seed)
        pool = inputs
        tokens = dictionary.map { Array($0.utf8) }.filter { !$0.isEmpty }
        self.maxLength = maxLength
    }

    /// The next of the seed's numbers.
    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    /// The next input: a corpus input with one to four mutations.
    mutating func nextInput() -> [UInt8] {
        var bytes = pool[below(pool.count)]
        for _ in 0...below(4) { mutate(&bytes) }
        return bytes.count > maxLength ? Array(bytes.prefix(maxLength)) : bytes
    }

    private static let interesting: [UInt8] = [
        0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x2C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x30, 0x39,
    ]

    mutating func mutate(_ bytes: inout [UInt8]) {
        let at = below(bytes.count + 1)
        switch below(8) {
        case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] ^= 1 << UInt8(below(8))
        case 1 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] = Self.interesting[below(Self.interesting.count)]
        case 2: bytes.insert(UInt8(truncatingIfNeeded: next()), at: at)
        case 3 where !bytes.isEmpty:
            let end = min(bytes.count, at + 1 + below(16))
            bytes.removeSubrange(min(at, bytes.count - 1)..<end)
        case 4 where !bytes.isEmpty:
            // A run of the input copied elsewhere in it.
            let from = below(bytes.count)
            let run = Array(bytes[from..<min(bytes.count, from + 1 + below(32))])
            bytes.insert(contentsOf: run, at: below(bytes.count + 1))
        case 5:
            // The start of this input, the rest of another (libFuzzer's CrossOver).
            let other = pool[below(pool.count)]
            bytes = Array(bytes.prefix(at)) + other.suffix(max(0, other.count - below(other.count + 1)))
        case 6 where !tokens.isEmpty: bytes.insert(contentsOf: tokens[below(tokens.count)], at: at)
        default:
            if !bytes.isEmpty { bytes.removeLast(min(bytes.count, 1 + below(8))) }
        }
    }
}
