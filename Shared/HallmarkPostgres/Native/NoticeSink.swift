import Foundation
import Logging
import libpq

/// Routes server notices to the logger instead of libpq's default, stderr.
final class NoticeSink: Sendable {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

/// The C callback libpq calls with each notice; `context` is the connection's NoticeSink.
let noticeProcessor: PQnoticeProcessor = { context, message in
    guard let context, let message else { return }
    let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
    sink.logger.debug("postgres notice: \(String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines))")
}
