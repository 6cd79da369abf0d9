import Foundation
import HallmarkSmileID
import HallmarkZip
import Testing

/// Reads archives for the zip tests and reports what became of them, timed.
enum ZipCheck {
    static let limits = ZipLimits(maxEntries: 256, maxInflatedBytes: 64 << 20)
    static let info = Data(#"{"mac":"7SkcJKyTMJ8YPk0myAFnb4ZqRCj2S5azfXqzinBVRDc=","timestamp":"2025-01-01T00:00:00.000Z"}"#.utf8)

    /// `files` plus a `security_info.json`.
    static func upload(_ files: [ZipForge.Entry], info: Data = info) -> ZipForge {
        ZipForge(files + [ZipForge.Entry(ZipUpload.securityInfoName, info)])
    }

    /// What reading `body` gave: `read`, `plain` (no security_info.json) or the refusal's
    /// reason; any error other than a `.zip` refusal is recorded as a test failure.
    static func outcome(
        _ body: Data, limits: ZipLimits = limits, within bound: Duration = .seconds(5),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        let start = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - start
            #expect(took < bound, "took \(took)", sourceLocation: sourceLocation)
        }
        do {
            return try ZipUpload.read(body, limits: limits) == nil ? "plain" : "read"
        } catch let error as ZipError where error.code == .invalid {
            return error.reason
        } catch {
            Issue.record("not a zip refusal: \(error)", sourceLocation: sourceLocation)
            return "\(error)"
        }
    }

    /// Bytes `contents(of:)` handed over for the archive's first entry before it stopped,
    /// and the refusal (nil when it read to the end).
    static func delivered(_ body: Data, limits: ZipLimits = limits) throws -> (bytes: Int, refusal: String?) {
        let archive = try ZipArchive(body, limits: limits)
        var bytes = 0
        do {
            try archive.contents(of: archive.entries[0]) { bytes += $0.count }
            return (bytes, nil)
        } catch let error as ZipError {
            return (bytes, error.reason)
        }
    }
}
