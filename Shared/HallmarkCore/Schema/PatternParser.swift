/// Parses the supported ECMA-262 subset (see ``Pattern``) into a ``PatternNode``.
struct PatternParser {
    let s: [Unicode.Scalar]
    var i = 0
    /// Counted repetitions are expanded; this bounds the program they make.
    static let maxRepeat = 1000

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    func fail(_ reason: String) -> PatternError { PatternError(offset: i, reason: reason) }
    var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

    mutating func parseAll() throws(PatternError) -> (PatternNode, Bool, Bool) {
        var start = false
        if peek == "^" { start = true; i += 1 }
        var end = false
        let options = try alternatives(endAnchor: &end)
        guard i == s.count else { throw fail("unexpected character") }
        // ECMA-262 binds `^a|b` as `(^a)|b`: refused rather than read as `^(?:a|b)`.
        if start || end, options.count > 1 { throw fail("anchors beside a top-level `|`: write ^(?:a|b)$") }
        return (options.count == 1 ? options[0] : .alternation(options), start, end)
    }

    mutating func alternation(endAnchor: inout Bool) throws(PatternError) -> PatternNode {
        let options = try alternatives(endAnchor: &endAnchor)
        return options.count == 1 ? options[0] : .alternation(options)
    }

    /// The `|`-separated options at this level.
    mutating func alternatives(endAnchor: inout Bool) throws(PatternError) -> [PatternNode] {
        var options = [try sequence(endAnchor: &endAnchor)]
        while peek == "|" {
            guard !endAnchor else { throw fail("`$` is only supported at the very end") }
            i += 1
            options.append(try sequence(endAnchor: &endAnchor))
        }
        return options
    }

    mutating func sequence(endAnchor: inout Bool) throws(PatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let c = peek, c != "|", c != ")" {
            if c == "$" {
                i += 1
                guard i == s.count else { throw fail("`$` is only supported at the very end") }
                endAnchor = true
                break
            }
            var atom = try self.atom()
            atom = try quantified(atom)
            items.append(atom)
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    mutating func atom() throws(PatternError) -> PatternNode {
        let c = s[i]
        switch c {
        case "(":
            i += 1
            if peek == "?" {
                guard i + 1 < s.count, s[i + 1] == ":" else { throw fail("only (?: groups are supported") }
                i += 2
            }
            var innerEnd = false
            let inner = try alternation(endAnchor: &innerEnd)
            guard !innerEnd else { throw fail("`$` inside a group") }
            guard peek == ")" else { throw fail("unclosed group") }
            i += 1
            return inner
        case "[": return .set(try characterClass())
        case ".": i += 1; return .set(.any)
        case "\\": i += 1; return .set(try escape(inClass: false))
        case "^": throw fail("`^` is only supported at the very start")
        case "*", "+", "?", "{": throw fail("nothing to repeat")
        default:
            i += 1
            var set = ScalarSet()
            set.add(c.value...c.value)
            return .set(set)
        }
    }

    mutating func quantified(_ atom: PatternNode) throws(PatternError) -> PatternNode {
        guard let c = peek else { return atom }
        var node = atom
        switch c {
        case "*": i += 1; node = .repeatNode(atom, min: 0, max: nil)
        case "+": i += 1; node = .repeatNode(atom, min: 1, max: nil)
        case "?": i += 1; node = .repeatNode(atom, min: 0, max: 1)
        case "{":
            i += 1
            let lo = try number()
            var hi: Int? = lo
            if peek == "," {
                i += 1
                hi = peek == "}" ? nil : try number()
            }
            guard peek == "}" else { throw fail("bad {n,m}") }
            i += 1
            guard lo <= Self.maxRepeat, (hi ?? lo) <= Self.maxRepeat, lo <= (hi ?? lo) else {
                throw fail("repetition out of range")
            }
            node = .repeatNode(atom, min: lo, max: hi)
        default: return atom
        }
        if peek == "?" { i += 1 }  // lazy: the same for a yes/no match
        if let q = peek, q == "*" || q == "+" || q == "{" { throw fail("nested quantifier") }
        return node
    }

    mutating func number() throws(PatternError) -> Int {
        var v = 0, digits = 0
        while let c = peek, ("0"..."9").contains(c) {
            v = v * 10 + Int(c.value - 48)
            digits += 1
            i += 1
            guard v <= 100_000 else { throw fail("number too large") }
        }
        guard digits > 0 else { throw fail("expected a number") }
        return v
    }

    mutating func characterClass() throws(PatternError) -> ScalarSet {
        i += 1  // [
        var set = ScalarSet()
        if peek == "^" { set.negated = true; i += 1 }
        while true {
            guard let c = peek else { throw fail("unclosed class") }
            // As in ECMA-262, `]` closes even right after `[`: `[]` matches nothing, `[^]` anything.
            if c == "]" { i += 1; break }
            let lowSet: ScalarSet
            var lowScalar: UInt32?
            if c == "\\" {
                i += 1
                lowSet = try escape(inClass: true)
                lowScalar = Self.single(lowSet)
            } else {
                i += 1
                var one = ScalarSet()
                one.add(c.value...c.value)
                lowSet = one
                lowScalar = c.value
            }
            if peek == "-", i + 1 < s.count, s[i + 1] != "]" {
                i += 1
                let hc = s[i]
                var high: UInt32
                if hc == "\\" {
                    i += 1
                    guard let h = Self.single(try escape(inClass: true)) else { throw fail("bad range") }
                    high = h
                } else {
                    i += 1
                    high = hc.value
                }
                guard let low = lowScalar, low <= high else { throw fail("bad range") }
                set.add(low...high)
            } else {
                set.add(lowSet)
            }
        }
        return set
    }

    /// The single scalar a one-scalar set holds.
    static func single(_ set: ScalarSet) -> UInt32? {
        guard !set.negated else { return nil }
        if set.ranges.isEmpty, set.high == 0, set.low.nonzeroBitCount == 1 { return UInt32(set.low.trailingZeroBitCount) }
        if set.ranges.isEmpty, set.low == 0, set.high.nonzeroBitCount == 1 { return UInt32(64 + set.high.trailingZeroBitCount) }
        if set.low == 0, set.high == 0, set.ranges.count == 1, set.ranges[0].count == 1 { return set.ranges[0].lowerBound }
        return nil
    }

    mutating func escape(inClass: Bool) throws(PatternError) -> ScalarSet {
        guard let c = peek else { throw fail("dangling escape") }
        i += 1
        var set = ScalarSet()
        switch c {
        case "d": set.add(48...57)
        case "w": set.add(48...57); set.add(65...90); set.add(97...122); set.add(95...95)
        case "s":
            // ECMA-262 WhiteSpace and LineTerminator.
            for v: UInt32 in [9, 10, 11, 12, 13, 32, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF] {
                set.add(v...v)
            }
            set.add(0x2000...0x200A)
        case "t": set.add(9...9)
        case "n": set.add(10...10)
        case "r": set.add(13...13)
        case "x":
            let v = try hex(2)
            set.add(v...v)
        case "u":
            let v = try hex(4)
            // Input is Unicode scalars: a lone surrogate could never match.
            guard !(0xD800...0xDFFF).contains(v) else { throw fail("surrogate escapes are not supported") }
            set.add(v...v)
        default:
            guard "\\/.-+*?()[]{}|^$".unicodeScalars.contains(c) else { throw fail("unsupported escape") }
            set.add(c.value...c.value)
        }
        return set
    }

    mutating func hex(_ n: Int) throws(PatternError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<n {
            guard let c = peek, let d = Self.hexDigit(c) else { throw fail("bad hex escape") }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    static func hexDigit(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": return c.value - 48
        case "a"..."f": return c.value - 97 + 10
        case "A"..."F": return c.value - 65 + 10
        default: return nil
        }
    }
}

/// Turns a ``PatternNode`` into Pike VM instructions.
struct PatternCompiler {
    var program: [Instruction] = []
    static let maxProgram = 20_000

    mutating func emit(_ node: PatternNode) throws(PatternError) {
        guard program.count < Self.maxProgram else { throw PatternError(offset: 0, reason: "pattern too large") }
        switch node {
        case .set(let set): program.append(.scalar(set))
        case .sequence(let items): for item in items { try emit(item) }
        case .alternation(let options):
            var jumps: [Int] = []
            for (k, option) in options.enumerated() {
                if k < options.count - 1 {
                    let split = program.count
                    program.append(.split(0, 0))
                    try emit(option)
                    jumps.append(program.count)
                    program.append(.jump(0))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(option)
                }
            }
            for j in jumps { program[j] = .jump(program.count) }
        case .repeatNode(let atom, let min, let max):
            for _ in 0..<min { try emit(atom) }
            if let max {
                // Optional copies: each may be skipped to the end.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.split(0, 0))
                    try emit(atom)
                }
                for s in splits { program[s] = .split(s + 1, program.count) }
            } else {
                let split = program.count
                program.append(.split(0, 0))
                try emit(atom)
                program.append(.jump(split))
                program[split] = .split(split + 1, program.count)
            }
        }
    }
}
