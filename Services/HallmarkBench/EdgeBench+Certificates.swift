import AggregatorCore
import Foundation
import HallmarkMessages

extension EdgeBench {
    /// The machine's in-process figure for the certificate path: certificate bundles checked one
    /// at a time on this thread as the aggregator's intake checks them (``CertificateBundles``,
    /// against the same CA file), each camera's certificate read and its chain checked once
    /// before the clock starts: bundles per second. Every one must pass.
    static func certificateChecks(_ bundles: [Message<Submission>], trusted: URL) async throws -> Double {
        let checks = CertificateBundles(
            path: trusted.path,
            captures: CaptureTokens(schema: "bench", key: try SubmissionIDKey.generate(), window: .seconds(60)))
        var seen = Set<String>()
        for bundle in bundles where seen.insert(bundle.body.cameraCert ?? "").inserted {
            _ = await checks.check(bundle.body)
        }
        let start = ContinuousClock.now
        var passed = 0
        for bundle in bundles {
            if case .passed = await checks.check(bundle.body) { passed += 1 }
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard passed == bundles.count else {
            throw BenchError("\(bundles.count - passed) of \(bundles.count) certificate bundles did not pass in process")
        }
        return Double(bundles.count) / seconds
    }
}
