import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres

extension SubmissionIntake {
    /// Judges the asks decided `.ask` so far by their tokens (``CaptureTokens``): a token's root
    /// and other reuses stay `.ask` when their parents are in the log, derived submissions
    /// become `.derived` and follow their root, and those with a parent known nowhere yet
    /// `.waits`. Records the roots and hashes.
    func judgeTokens(
        _ asks: [Ask], _ decisions: inout [Decision], logged: [String: Int], on connection: PostgresConnection
    ) async throws -> SubmissionLedger.Followed {
        var uses: [(index: Int, use: CaptureTokens.Use)] = []
        for (i, ask) in asks.enumerated() {
            guard case .ask = decisions[i] else { continue }
            // Without a token's digest (the authority will refuse it), the log alone judges.
            let token = ask.token.flatMap(flow.captures.digest)
            let use = flow.captures.use(ask.row, ask.provenance, token: token ?? Data(), logged: logged)
            guard token != nil else {
                if !use.holdsInLog { decisions[i] = Self.decision(CaptureTokens.refusal(use, under: [:])) }
                continue
            }
            uses.append((i, use))
        }
        guard !uses.isEmpty else { return SubmissionLedger.Followed() }
        let known = try await flow.captures.lockAndLoad(uses.map(\.use.token), on: connection)
        let judged = CaptureTokens.judge(uses.map(\.use), known: known)
        var derived: [(id: UUID, root: UUID)] = []
        for ((i, use), verdict) in zip(uses, judged.verdicts) {
            decisions[i] = Self.decision(verdict)
            if case .derived(let root) = verdict { derived.append((use.submission, root)) }
        }
        try await flow.captures.record(judged.tokens, on: connection)
        return try await flow.ledger.follow(derived, on: connection)
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
