/// A DFA over a ``Pattern``'s program, built lazily while matching: each state is a set of
/// live threads (the program counters of its scalar instructions, closed over jumps and
/// splits), and an ASCII scalar's transition is computed once and then looked up. The match
/// is the same as the program's simulation; only the work per scalar differs.
///
/// When an input would need more than ``maxStates`` states it gives up (nil) and the caller
/// simulates the program instead, so memory stays bounded (128 table entries per state).
struct LazyDFA {
    static let maxStates = 1024
    static let accept: UInt8 = 1, dead: UInt8 = 2
    let program: [Instruction]
    let anchoredStart: Bool
    let anchoredEnd: Bool
    /// Per state: its scalar-instruction counters, ascending.
    var threads: [[Int]] = []
    /// Per state: ``accept`` and/or ``dead`` (no thread left).
    var flags: [UInt8] = []
    var ids: [[Int]: Int] = [:]
    /// `state * 128 + scalar` → next state, -1 while unknown.
    var ascii: [Int32] = []
    var list: ThreadList
    /// The start state, once found: finding it builds and hashes a thread list, which cost
    /// more than matching a short field.
    var start: Int?

    init(program: [Instruction], anchoredStart: Bool, anchoredEnd: Bool) {
        self.program = program
        self.anchoredStart = anchoredStart
        self.anchoredEnd = anchoredEnd
        list = ThreadList(capacity: program.count)
    }

    /// A fresh DFA for `pattern` (tests compare it with the simulation).
    init(_ pattern: Pattern) {
        self.init(program: pattern.program, anchoredStart: pattern.anchoredStart, anchoredEnd: pattern.anchoredEnd)
    }

    /// Whether the whole input matches, or nil past ``maxStates``.
    mutating func run(_ scalars: String.UnicodeScalarView) -> Bool? {
        guard var state = startState() else { return nil }
        for scalar in scalars {
            if flags[state] & Self.accept != 0 && !anchoredEnd { return true }
            if flags[state] & Self.dead != 0 { return false }
            let v = scalar.value
            if v < 128 {
                let known = ascii[state &* 128 &+ Int(v)]
                if known >= 0 {
                    state = Int(known)
                    continue
                }
            }
            guard let next = step(state, scalar) else { return nil }
            if v < 128 { ascii[state &* 128 &+ Int(v)] = Int32(next) }
            state = next
        }
        return flags[state] & Self.accept != 0
    }

    /// The same over UTF-8 bytes, while they are ASCII (one table lookup per byte); nil at the
    /// first non-ASCII byte or past ``maxStates``.
    mutating func runASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard var state = startState() else { return nil }
        guard let p = bytes.baseAddress else { return flags[state] & Self.accept != 0 }
        let n = bytes.count, anchoredEnd = self.anchoredEnd
        var i = 0
        while true {
            // Known transitions on raw pointers (this runs over whole bodies, debug builds
            // included); leave only to add a state.
            enum Stop { case end, match, dead, nonASCII, unknown }
            let stop: Stop = ascii.withUnsafeBufferPointer { table in
                flags.withUnsafeBufferPointer { flagTable in
                    let t = table.baseAddress!, f = flagTable.baseAddress!
                    // In locals, written back once: the captured ones were loaded and stored
                    // at every byte.
                    var s = state, j = i
                    defer { (state, i) = (s, j) }
                    // An anchored end never ends early on an accepting state.
                    let stopFlags = anchoredEnd ? Self.dead : Self.accept | Self.dead
                    while j < n {
                        let byte = p[j]
                        if byte >= 128 { return .nonASCII }
                        let flag = f[s]
                        if flag & stopFlags != 0 { return !anchoredEnd && flag & Self.accept != 0 ? .match : .dead }
                        let known = t[s &* 128 &+ Int(byte)]
                        if known < 0 { return .unknown }
                        s = Int(known)
                        j &+= 1
                    }
                    return .end
                }
            }
            switch stop {
            case .end: return flags[state] & Self.accept != 0
            case .match: return true
            case .dead: return false
            case .nonASCII: return nil
            case .unknown:
                guard let next = step(state, Unicode.Scalar(p[i])) else { return nil }
                ascii[state &* 128 &+ Int(p[i])] = Int32(next)
                state = next
                i &+= 1
            }
        }
    }

    /// The start state: found once, then kept in ``start``.
    mutating func startState() -> Int? {
        if let start { return start }
        start = state(after: [0])
        return start
    }

    /// The state after `scalar` from `state`.
    mutating func step(_ state: Int, _ scalar: Unicode.Scalar) -> Int? {
        var seeds: [Int] = []
        for pc in threads[state] {
            if case .scalar(let set) = program[pc], set.contains(scalar) { seeds.append(pc + 1) }
        }
        return self.state(after: seeds)
    }

    /// The state whose threads are everything reachable from `seeds` (and from the start, for
    /// an unanchored pattern, which may begin a match at any scalar).
    mutating func state(after seeds: [Int]) -> Int? {
        list.clear()
        for pc in seeds { Pattern.add(pc, program: program, to: &list) }
        if !anchoredStart { Pattern.add(0, program: program, to: &list) }
        var live: [Int] = []
        for i in 0..<list.count {
            let pc = list.pcs[i]
            if case .scalar = program[pc] { live.append(pc) }
        }
        live.sort()
        let key = list.isMatch ? live + [-1] : live
        if let id = ids[key] { return id }
        guard threads.count < Self.maxStates else { return nil }
        let id = threads.count
        ids[key] = id
        threads.append(live)
        flags.append((list.isMatch ? Self.accept : 0) | (live.isEmpty ? Self.dead : 0))
        ascii.append(contentsOf: repeatElement(-1, count: 128))
        return id
    }
}
