import Foundation
import HallmarkRuntime

/// What the aggregator's parts share about a submission's way through them, made once by
/// ``AggregatorService`` and handed to each part, none of which makes its own:
/// - the ledger, every submission's state, its token request while the authority answers
///   included (``SubmissionLedger``), which the retrier resends and, when the authority never
///   answers, gives up on;
/// - the capture tokens, derived images under their capture's token (``CaptureTokens``);
/// - the submissions waiting for a parent (``ParentWaits``);
/// - the log's tables (``LogStore``);
/// - the bell that wakes the log writer once a transaction has queued submissions;
/// - the certificate bundles' checks and trusted CAs (``CertificateBundles``).
package struct SubmissionFlow: Sendable {
    package let ledger: SubmissionLedger
    package let captures: CaptureTokens
    package let waits: ParentWaits
    package let log: LogStore
    package let writerBell: WriterBell
    package let certificates: CertificateBundles

    /// The flow of `configuration`'s schema.
    package init(_ configuration: AggregatorConfiguration, idKey: SubmissionIDKey) {
        let schema = configuration.schema
        ledger = SubmissionLedger(schema: schema, asking: .init(configuration))
        captures = CaptureTokens(schema: schema, key: idKey, window: configuration.captureWindow)
        waits = ParentWaits(schema: schema, window: configuration.provenanceWindow)
        log = LogStore(schema: schema)
        writerBell = WriterBell()
        certificates = CertificateBundles(path: configuration.deviceCAFile, captures: captures)
    }
}
