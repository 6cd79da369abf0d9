/// A JSON Schema `pattern`: the ECMA-262 subset Hallmark's schemas use, matched in linear
/// time (a Pike VM over Unicode scalars, no backtracking), so no input — a 1 MiB `body_b64`
/// included — makes matching slow or deep.
///
/// Supported: literals and escapes (`\d \w \s \t \n \r \xHH \uHHHH`, escaped metacharacters),
/// `.`, classes `[...]`/`[^...]` with ranges (`[]` matches nothing, `[^]` anything), groups
/// `(...)`/`(?:...)`, `|`, and the quantifiers `* + ? {n} {n,} {n,m}` (lazy forms match the
/// same). `^` only at the very start and `$` only at the very end, and then not beside a
/// top-level `|` (write `^(?:a|b)$`). Unanchored patterns search, as ECMA-262 does. Anything
/// else (lookaround, backreferences, named groups, `\b`, surrogate escapes) is refused when
/// compiled, so a pattern never means something other than what ECMA-262 says.
///
/// Matching runs on a DFA built lazily from the program and kept with the pattern, so once
/// warm it costs one table lookup per ASCII scalar and allocates nothing: a 1 MiB base64 body
/// is checked in milliseconds, a token field in a few hundred nanoseconds. (Should an input
/// need more DFA states than ``LazyDFA/maxStates``, the program is simulated instead.)
public struct Pattern: Sendable, CustomStringConvertible {
    /// The pattern as written.
    public let source: String
    let program: [Instruction]
    let anchoredStart: Bool
    let anchoredEnd: Bool
    /// `^[set]{min,max}$`: matched by a plain loop.
    let simple: (set: ScalarSet, min: Int, max: Int)?
    /// The DFA states matches have needed so far, shared by every copy of this pattern.
    let dfa: DFACache

    /// Canonical padded base64, as the schemas' `body_b64` writes it: equal to the
    /// `contentEncoding: base64` check, which the schema compiler then runs alone.
    public static let canonicalBase64 =
        "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$"

    /// Compiles `source`.
    /// - Throws: ``PatternError`` naming the offset of what is not supported.
    public init(_ source: String) throws(PatternError) {
        self.source = source
        var parser = PatternParser(Array(source.unicodeScalars))
        let (node, start, end) = try parser.parseAll()
        anchoredStart = start
        anchoredEnd = end
        if start, end, case .repeatNode(.set(let set), let min, let max) = node {
            simple = (set, min, max ?? Int.max)
        } else if start, end, case .set(let set) = node {
            simple = (set, 1, 1)
        } else {
            simple = nil
        }
        var compiler = PatternCompiler()
        try compiler.emit(node)
        compiler.program.append(.match)
        program = compiler.program
        dfa = DFACache(program: program, anchoredStart: start, anchoredEnd: end)
    }

    public var description: String { source }

    /// Whether `text` matches.
    public func matches(_ text: String) -> Bool {
        if let simple {
            // ASCII text, the usual case, byte by byte: the scalar view decodes each scalar.
            if let ascii = text.utf8.withContiguousStorageIfAvailable({ Self.matchesASCII($0, simple) }),
                let result = ascii
            {
                return result
            }
            var n = 0
            for scalar in text.unicodeScalars {
                guard simple.set.contains(scalar) else { return false }
                n += 1
                if n > simple.max { return false }
            }
            return n >= simple.min
        }
        let result = dfa.withDFA { dfa -> Bool? in
            var bytes = text
            if let result = bytes.withUTF8({ dfa.runASCII($0) }) { return result }
            return dfa.run(text.unicodeScalars)
        }
        return result ?? run(text.unicodeScalars)
    }

    /// Whether `bytes` match `^[set]{min,max}$`, or nil at a byte that is not ASCII (where
    /// bytes and scalars part). Before it, each byte is a scalar, so a byte outside the set or
    /// past `max` settles the answer.
    static func matchesASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ simple: (set: ScalarSet, min: Int, max: Int)) -> Bool? {
        for (i, byte) in bytes.enumerated() {
            guard byte < 128 else { return nil }
            guard i < simple.max, simple.set.contains(Unicode.Scalar(byte)) else { return false }
        }
        return bytes.count >= simple.min
    }

    /// Simulates the program (Pike VM), one step over all live threads per scalar.
    func run(_ scalars: String.UnicodeScalarView) -> Bool {
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        add(0, to: &current)
        for scalar in scalars {
            if current.isMatch && !anchoredEnd { return true }
            if !anchoredStart { add(0, to: &current) }
            if current.count == 0 { return false }
            next.clear()
            for i in 0..<current.count {
                let pc = current.pcs[i]
                if case .scalar(let set) = program[pc], set.contains(scalar) { add(pc + 1, to: &next) }
            }
            swap(&current, &next)
        }
        if !anchoredStart { add(0, to: &current) }
        return current.isMatch
    }

    /// Adds `pc` and everything reachable from it without consuming input.
    func add(_ pc: Int, to list: inout ThreadList) { Self.add(pc, program: program, to: &list) }

    /// Adds `pc` and everything reachable from it in `program` without consuming input.
    static func add(_ pc: Int, program: [Instruction], to list: inout ThreadList) {
        list.stack.append(pc)
        while let pc = list.stack.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target): list.stack.append(target)
            case .split(let a, let b):
                list.stack.append(b)
                list.stack.append(a)
            case .match: list.isMatch = true
            case .scalar: break
            }
        }
    }
}

/// Why a pattern is not supported.
public struct PatternError: Error, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "pattern not supported at \(offset): \(reason)" }
}

enum Instruction: Sendable {
    case scalar(ScalarSet)
    case split(Int, Int)
    case jump(Int)
    case match
}

/// A set of Unicode scalars: a bitmap for ASCII and ranges beyond it.
struct ScalarSet: Sendable, Equatable {
    var low: UInt64 = 0
    var high: UInt64 = 0
    var ranges: [ClosedRange<UInt32>] = []
    var negated = false

    static let any: ScalarSet = {
        // `.`: anything but line terminators.
        var s = ScalarSet()
        s.add(0x0A...0x0A); s.add(0x0D...0x0D); s.add(0x2028...0x2029)
        s.negated = true
        return s
    }()

    mutating func add(_ range: ClosedRange<UInt32>) {
        // (A range starting above ASCII must not build `lowerBound...127`: that traps.)
        if range.lowerBound < 128 {
            for v in range.lowerBound...min(range.upperBound, 127) {
                if v < 64 { low |= 1 << UInt64(v) } else { high |= 1 << UInt64(v - 64) }
            }
        }
        if range.upperBound >= 128 { ranges.append(max(range.lowerBound, 128)...range.upperBound) }
    }

    mutating func add(_ other: ScalarSet) {
        low |= other.low
        high |= other.high
        ranges += other.ranges
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        let inside: Bool
        if v < 64 {
            inside = low & (1 << UInt64(v)) != 0
        } else if v < 128 {
            inside = high & (1 << UInt64(v - 64)) != 0
        } else {
            inside = ranges.contains { $0.contains(v) }
        }
        return inside != negated
    }
}

/// The parsed form of a pattern.
indirect enum PatternNode: Sendable {
    case set(ScalarSet)
    case sequence([PatternNode])
    case alternation([PatternNode])
    case repeatNode(PatternNode, min: Int, max: Int?)
}

/// The program's live threads: a sparse set of program counters.
struct ThreadList {
    var pcs: [Int]
    var count = 0
    var stamp: [Int]
    var generation = 1
    var isMatch = false
    /// Scratch for ``Pattern/add(_:to:)``, kept so adding allocates nothing.
    var stack: [Int] = []

    init(capacity: Int) {
        pcs = Array(repeating: 0, count: capacity)
        stamp = Array(repeating: 0, count: capacity)
        stack.reserveCapacity(capacity)
    }

    mutating func insert(_ pc: Int) -> Bool {
        if stamp[pc] == generation { return false }
        stamp[pc] = generation
        pcs[count] = pc
        count += 1
        return true
    }

    mutating func clear() {
        count = 0
        generation += 1
        isMatch = false
    }
}
