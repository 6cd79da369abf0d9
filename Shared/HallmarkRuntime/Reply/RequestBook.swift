import Foundation
import HallmarkPostgres

/// Where a requesting stage keeps the requests it awaits replies to, as ``RequestRetrier``
/// works through them: ``PendingRequests`` (a table of its own), or a stage's own rows (the
/// aggregator keeps a submission's token request in the submission's row, and so writes no row
/// per request: #55).
///
/// A book keeps each request's message, how often it was sent, when to send it again and when
/// to give up on it.
public protocol RequestBook: Sendable {
    /// Claims up to `limit` due requests in the caller's transaction (`FOR UPDATE SKIP LOCKED`,
    /// so replicas share them):
    /// - those to send again, already moved to their next sending (the interval doubles per
    ///   attempt, up to 64 times ``PendingRequests/resendAfter``);
    /// - those past their deadline, given up: no reply joins them any more, and they are
    ///   claimed again (their outcomes sent again) until ``forget(_:on:)`` is called, so a crash
    ///   between giving up and sending the outcome loses nothing.
    func claimDue(limit: Int, on connection: PostgresConnection) async throws -> DueRequests

    /// Forgets requests given up, once their outcomes were sent.
    func forget(_ expired: [PendingRequest], on connection: PostgresConnection) async throws
}

extension RequestBook {
    /// When a request sent `attempts` times (a column of the book's table) goes next: after
    /// `resendAfter`, doubled per attempt, up to 64 times. The one backoff of every book.
    public static func nextSending(afterAttempts attempts: String, resendAfter: Duration) -> PostgresQuery {
        "now() + \(interval: resendAfter) * power(2, least(\(unescaped: attempts), 6))"
    }
}

/// What ``RequestBook/claimDue(limit:on:)`` claimed.
public struct DueRequests: Sendable {
    /// The messages to send again, under their own ids.
    public var resend: [StageOutput]
    /// The requests given up, for the requester's timeout handler.
    public var expired: [PendingRequest]

    public init(resend: [StageOutput] = [], expired: [PendingRequest] = []) {
        self.resend = resend
        self.expired = expired
    }
}
