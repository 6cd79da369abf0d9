import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres

extension SubmissionIntake {
    /// What ``judgeTokens(_:_:logged:on:)`` decided of a batch's tokens before its submissions
    /// are recorded: the capture token each new root carries in its own row, and what is left
    /// to write once they are (``follow(_:on:)``).
    struct JudgedTokens: Sendable {
        var roots: [UUID: (token: Data, hashes: Data)] = [:]
        /// Tokens that need their `capture_tokens` row written.
        var tokens: [Data: CaptureTokens.Known] = [:]
        /// Derived submissions and the roots whose outcomes they take.
        var derived: [(id: UUID, root: UUID)] = []
    }

    /// Judges the asks decided `.ask` so far by their tokens (``CaptureTokens``), before they
    /// are recorded: a token's root and other reuses stay `.ask` when their parents are in the
    /// log, derived submissions become `.derived`, and those with a parent known nowhere yet
    /// `.waits`. The tokens stay locked until the transaction ends.
    func judgeTokens(
        _ asks: [Ask], _ decisions: inout [Decision], logged: [String: Int], on connection: PostgresConnection
    ) async throws -> JudgedTokens {
        var uses: [(index: Int, use: CaptureTokens.Use)] = []
        for (i, ask) in asks.enumerated() {
            guard case .ask = decisions[i] else { continue }
            // Without a token's digest (the authority will refuse it), the log alone judges.
            let token = ask.capture
            let use = flow.captures.use(
                ask.row, ask.provenance, token: token ?? Data(), logged: logged, repeats: ask.certificate != nil)
            guard token != nil else {
                if !use.holdsInLog { decisions[i] = Self.decision(CaptureTokens.refusal(use, under: [:])) }
                continue
            }
            uses.append((i, use))
        }
        guard !uses.isEmpty else { return JudgedTokens() }
        let known = try await flow.captures.lockAndLoad(uses.map(\.use.token), on: connection)
        let judged = CaptureTokens.judge(uses.map(\.use), known: known)
        var out = JudgedTokens()
        for ((i, use), verdict) in zip(uses, judged.verdicts) {
            decisions[i] = Self.decision(verdict)
            if case .derived(let root) = verdict { out.derived.append((use.submission, root)) }
        }
        (out.roots, out.tokens) = CaptureTokens.carried(judged.tokens, known: known, uses: uses.map(\.use))
        return out
    }

    /// Writes what the judgement left once the submissions are recorded: the tokens that need
    /// their own rows, and the derived submissions following their roots.
    func follow(_ judged: JudgedTokens, on connection: PostgresConnection) async throws -> SubmissionLedger.Followed {
        try await flow.captures.record(judged.tokens, on: connection)
        return try await flow.ledger.follow(judged.derived, on: connection)
    }

    /// A token's verdict as the intake's decision.
    static func decision(_ verdict: CaptureTokens.Verdict) -> Decision {
        switch verdict {
        case .ask: .ask
        case .invalidProvenance: .refused(.invalidProvenance)
        case .waits: .waits
        case .derived(let root): .derived(root: root)
        }
    }
}
