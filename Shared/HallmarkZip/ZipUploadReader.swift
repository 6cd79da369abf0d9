import Foundation
import Logging
import Metrics

/// Reads zip uploads for a service: the structure is parsed at once (cheap and bounded by
/// ``ZipLimits/maxEntries``), the memory the read will hold is reserved from the shared
/// ``ZipMemoryBudget``, and the inflating runs on the ``ZipWorkerPool``.
///
/// A refusal throws ``ZipError`` `.invalid`, whose reason names the broken rule or limit and
/// never a name or content; the caller answers it (the signer: `malformed`). Other errors
/// (`CancellationError`, a stopped pool) are not the input's fault.
public struct ZipUploadReader: Sendable {
    /// What a body that looks like a zip turned out to be.
    public enum Read: Sendable {
        /// A SIGN-FILES upload. Its memory stays reserved until `reservation` is released.
        case upload(ZipUpload, reservation: ZipReservation)
        /// A well-formed archive without `security_info.json`: a plain SIGN-1 payload.
        case plainBody
    }

    public let limits: ZipLimits
    public let budget: ZipMemoryBudget
    public let pool: ZipWorkerPool
    private let refused: Counter
    private let logger: Logger

    public init(limits: ZipLimits, budget: ZipMemoryBudget, pool: ZipWorkerPool, service: String, logger: Logger) {
        self.limits = limits
        self.budget = budget
        self.pool = pool
        self.logger = logger
        refused = Counter(label: "hallmark_smileid_zip_refused_total", dimensions: [("service", service)])
    }

    /// Reads `body`, which ``ZipUpload/looksLikeZip(_:)`` accepted.
    public func read(_ body: Data) async throws -> Read {
        do {
            guard let plan = try ZipUpload.plan(ZipArchive(body, limits: limits)) else { return .plainBody }
            let reservation = try await budget.reserve(plan.reservation)
            let upload = try await pool.perform { try ZipUpload.read(plan) }
            return .upload(upload, reservation: reservation)
        } catch let error as ZipError where error.code == .invalid {
            refused.increment()
            logger.debug("zip upload refused", metadata: ["reason": "\(error.reason)"])
            throw error
        }
    }
}
