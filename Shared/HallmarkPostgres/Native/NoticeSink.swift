import Foundation
import Logging
import libpq

/// Routes server notices to the logger instead of libpq's default, stderr.
final class NoticeSink: Sendable {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

/// The C callback libpq calls with each notice; `context` is the connection's NoticeSink. Only
/// the severity and SQLSTATE are logged: a notice's text can quote values (`RAISE NOTICE`, or a
/// server message naming a value).
let noticeReceiver: PQnoticeReceiver = { context, result in
    guard let context, let result else { return }
    let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
    func field(_ code: UInt8) -> String? {
        PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
    }
    let sqlState = field(UInt8(ascii: "C")).flatMap(PostgresConnection.validSQLState)
    sink.logger.debug(
        "postgres notice",
        metadata: [
            "postgres.severity": "\(field(UInt8(ascii: "V")) ?? "NOTICE")",
            "postgres.sqlstate": "\(sqlState ?? "none")",
            "postgres.condition": "\(sqlState.flatMap(PostgresConditionNames.name(for:)) ?? "unknown")",
        ])
}
