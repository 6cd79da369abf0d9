@testable import AggregatorCore
import Foundation
import HallmarkCrypto
import Testing

/// ``CaptureTokens/judge(_:known:)``: which reuses of a token are derived images (DESIGN §2).
@Suite("Capture tokens", .timeLimit(.minutes(1)))
struct CaptureTokensTests {
    static func digest() -> Data { try! SecureRandom.bytes(32) }

    static func use(
        _ token: Data, hashes: [(Data, Int)], external: [(Data, Int)] = [], inLog: Bool = true, id: UUID = UUID(),
        logged: [Data: Int] = [:], repeats: Bool = false
    ) -> CaptureTokens.Use {
        CaptureTokens.Use(
            submission: id, token: token, hashes: hashes.map { (digest: $0.0, level: $0.1) },
            external: external.map { (parent: $0.0, level: $0.1) }, holdsInLog: inLog, logged: logged,
            repeats: repeats)
    }

    /// DESIGN BM-CERT: a certificate bundle's capture (its certificate and time) sent again
    /// with the same hash is derived, so the authority is not asked again and the answer is the
    /// first one's (`duplicate` once logged). Another hash under that capture is asked; a
    /// token's exact repeat is asked too (`replayed_token`).
    @Test func aCertificateBundleSentAgainTakesItsFirstOutcome() {
        let (capture, hash, token) = (Self.digest(), Self.digest(), Self.digest())
        let root = UUID()
        let uses = [
            Self.use(capture, hashes: [(hash, 0)], id: root, repeats: true),
            Self.use(capture, hashes: [(hash, 0)], repeats: true),
            Self.use(capture, hashes: [(Self.digest(), 0)], repeats: true),
            Self.use(token, hashes: [(hash, 0)]),
            Self.use(token, hashes: [(hash, 0)]),
        ]
        let judged = CaptureTokens.judge(uses, known: [:])
        #expect(judged.verdicts == [.ask, .derived(root: root), .ask, .ask, .ask])
    }

    @Test func aTokensFirstUseIsItsRootAndItsDerivedImagesFollowIt() {
        let (token, raw, processed, edit) = (Self.digest(), Self.digest(), Self.digest(), Self.digest())
        let root = UUID()
        let uses = [
            Self.use(token, hashes: [(raw, 0)], id: root),
            // Parent under the token, not (yet) in the log.
            Self.use(token, hashes: [(processed, 1)], external: [(raw, 1)], inLog: false),
            // A parent from a derived image of the same token.
            Self.use(token, hashes: [(edit, 2)], external: [(processed, 2)], inLog: false),
        ]
        let judged = CaptureTokens.judge(uses, known: [:])
        #expect(judged.verdicts == [.ask, .derived(root: root), .derived(root: root)])
        #expect(judged.tokens.count == 1 && judged.tokens[token]?.root == root)
        #expect(judged.tokens[token]?.hashes == [raw: 0, processed: 1, edit: 2])
    }

    @Test func anyOtherReuseIsAskedAboutOrRefused() {
        let (token, raw, other) = (Self.digest(), Self.digest(), Self.digest())
        let root = UUID()
        let known = [token: CaptureTokens.Known(root: root, hashes: [raw: 0])]
        let uses = [
            // Another raw image: asked (the authority answers replayed_token).
            Self.use(token, hashes: [(Self.digest(), 0)]),
            // A parent in the log but not under the token: asked.
            Self.use(token, hashes: [(Self.digest(), 1)], external: [(other, 1)]),
            // A parent of no lower level: neither derived nor in the log.
            Self.use(token, hashes: [(Self.digest(), 0)], external: [(raw, 0)], inLog: false),
            // A level 1 image beside a level 0 one in one submission is not derived.
            Self.use(token, hashes: [(Self.digest(), 0), (Self.digest(), 1)]),
            // A parent in the log at its child's level: refused for good.
            Self.use(token, hashes: [(Self.digest(), 1)], external: [(other, 1)], inLog: false, logged: [other: 1]),
        ]
        let judged = CaptureTokens.judge(uses, known: known)
        #expect(judged.verdicts == [.ask, .ask, .invalidProvenance, .ask, .invalidProvenance])
        #expect(judged.tokens.isEmpty)
    }

    /// DESIGN §2: a refusal that depends on state that can still change is not final. A parent
    /// known nowhere (neither in the log nor under the token) may still come: the use waits,
    /// and takes no token; once a parent is known at its child's level or above, it never can.
    @Test func aParentKnownNowhereIsWaitedFor() {
        let (token, raw, unknown, other) = (Self.digest(), Self.digest(), Self.digest(), Self.digest())
        let known = [token: CaptureTokens.Known(root: UUID(), hashes: [raw: 0])]
        let uses = [
            // Unknown token, unknown parent: the processed bundle read before its raw one.
            Self.use(Self.digest(), hashes: [(Self.digest(), 1)], external: [(unknown, 1)], inLog: false),
            // A known token, a parent not under it nor in the log.
            Self.use(token, hashes: [(Self.digest(), 2)], external: [(unknown, 2)], inLog: false),
            // One parent known nowhere, another in the log at a level too high: never.
            Self.use(
                token, hashes: [(Self.digest(), 1), (Self.digest(), 1)], external: [(unknown, 1), (other, 1)], inLog: false,
                logged: [other: 2]),
        ]
        let judged = CaptureTokens.judge(uses, known: known)
        #expect(judged.verdicts == [.waits, .waits, .invalidProvenance])
        #expect(judged.tokens.isEmpty)
    }

    @Test func aHashTwiceUnderATokenIsKeptAtItsLowestLevel() {
        let (token, raw, processed) = (Self.digest(), Self.digest(), Self.digest())
        let uses = [
            Self.use(token, hashes: [(raw, 0), (processed, 2), (processed, 1)], id: UUID()),
            Self.use(token, hashes: [(processed, 1)], external: [(raw, 1)], inLog: false),
        ]
        let judged = CaptureTokens.judge(uses, known: [:])
        #expect(judged.tokens[token]?.hashes == [raw: 0, processed: 1])
    }
}
