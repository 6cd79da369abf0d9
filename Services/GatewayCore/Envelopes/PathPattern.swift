/// A glob over HTTP paths, for the policy's excluded paths: `*` matches any run of characters
/// within one segment (no `/`), `**` any run including `/`, `?` one character other than `/`;
/// everything else matches itself. A path's query (`?…`) is not part of what is matched.
///
/// Matching is iterative with one backtrack point per star kind, so it is linear-ish in the
/// path and never recursive: a hostile pattern or path cannot blow the stack.
package struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Token: Hashable { case literal(UInt8), any, star, globstar }

    package let description: String
    let tokens: [Token]

    /// Parses `pattern`; it must start with `/`.
    package init?(_ pattern: String) {
        guard pattern.hasPrefix("/"), pattern.utf8.count <= 2048 else { return nil }
        description = pattern
        var tokens: [Token] = []
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "*"):
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    tokens.append(.globstar)
                    i += 1
                } else {
                    tokens.append(.star)
                }
            case UInt8(ascii: "?"): tokens.append(.any)
            default: tokens.append(.literal(bytes[i]))
            }
            i += 1
        }
        self.tokens = tokens
    }

    /// Whether `path` (its query removed) matches.
    package func matches(_ path: String) -> Bool {
        let full = Array(path.utf8)
        let text = full.firstIndex(of: UInt8(ascii: "?")).map { Array(full[..<$0]) } ?? full
        return Self.match(tokens, text)
    }

    /// Classic two-pointer wildcard matching, extended for the segment-bound `*`: a `**`
    /// backtrack point may move past `/`, a `*` one may not.
    static func match(_ p: [Token], _ s: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/")
        var (pi, si) = (0, 0)
        var star: (p: Int, s: Int)?
        var globstar: (p: Int, s: Int)?
        while si < s.count {
            if pi < p.count {
                switch p[pi] {
                case .literal(let c) where c == s[si]:
                    pi += 1; si += 1; continue
                case .any where s[si] != slash:
                    pi += 1; si += 1; continue
                case .star:
                    star = (pi, si); pi += 1; continue
                case .globstar:
                    globstar = (pi, si); star = nil; pi += 1; continue
                default: break
                }
            }
            // Mismatch: widen the latest `*` within its segment, else the latest `**`.
            if let st = star, st.s < s.count, s[st.s] != slash {
                star = (st.p, st.s + 1)
                (pi, si) = (st.p + 1, st.s + 1)
            } else if let g = globstar, g.s < s.count {
                star = nil
                globstar = (g.p, g.s + 1)
                (pi, si) = (g.p + 1, g.s + 1)
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == .star || p[pi] == .globstar { pi += 1 }
        return pi == p.count
    }
}
