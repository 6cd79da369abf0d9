import HallmarkMessages
import HallmarkPostgres

/// A service's part in privacy requests (``PrivacyProcessor``): what it holds about a subject,
/// and how that is erased. Both run in the request's transaction, so an erasure and its audit
/// record commit together.
public protocol PrivacyHolder: Sendable {
    /// The service's audit trail: requests are recorded there, and its schema holds the
    /// service's tables.
    var audit: AuditTrail { get }

    /// The subject types this service holds data about; valid requests about others get no
    /// answer from it (a message it refuses does: ``PrivacyProcessor/answer(refused:)``).
    var subjectTypes: Set<PrivacyRequest.SubjectType> { get }

    /// Every row held about the subject, never key material; empty when nothing is held.
    func export(
        _ type: PrivacyRequest.SubjectType, _ subject: String,
        on connection: PostgresConnection
    ) async throws -> [PrivacyResult.ExportRecord]

    /// Deletes what is held about the subject; returns the rows deleted by source and what
    /// outlives the request, and until when (both empty when nothing is held: `not_found`).
    func erase(
        _ type: PrivacyRequest.SubjectType, _ subject: String,
        on connection: PostgresConnection
    ) async throws -> PrivacyErasure
}

/// What an erasure did.
public struct PrivacyErasure: Sendable {
    /// Rows deleted, by source (only sources that had rows).
    public var erased: [PrivacyResult.SourceCount]
    /// What outlives the request.
    public var retained: [PrivacyResult.Retained]

    public init(erased: [PrivacyResult.SourceCount], retained: [PrivacyResult.Retained] = []) {
        self.erased = erased
        self.retained = retained
    }
}
