import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres

/// How the runtime treats errors: which are worth retrying, and what of them is safe to log.
public enum ErrorPolicy {
    /// Failures worth retrying without limit: the database or broker is away for a while.
    public static func isTransient(_ error: any Error) -> Bool {
        if let pg = error as? PostgresError {
            if [.connectionLost, .connectionFailed].contains(pg.code) { return true }
            // serialization_failure, deadlock_detected, admin/crash shutdown, cannot_connect_now
            return ["40001", "40P01", "57P01", "57P02", "57P03"].contains(pg.sqlState ?? "")
        }
        if let kafka = error as? KafkaError { return [.delivery, .produce, .timeout].contains(kafka.code) }
        return error is any RetryableError
    }

    /// Failures that the same input will always meet again: no retry, the message is rejected
    /// at once. A PostgreSQL data exception (SQLSTATE class 22: a value the column cannot
    /// hold) and a message too large for the broker.
    public static func isPermanent(_ error: any Error) -> Bool {
        if let pg = error as? PostgresError { return pg.sqlState?.hasPrefix("22") == true }
        if let kafka = error as? KafkaError { return kafka.code == .oversized }
        return error is StageRejection || error is EnvelopeError
    }

    /// Hallmark's error types describe themselves without secrets; anything else by type only.
    public static func safeDescription(_ error: any Error) -> String {
        switch error {
        case let e as KafkaError where e.code == .unsupportedLibrary: return e.reason
        case let e as KafkaError: return e.description
        case let e as PostgresError: return e.description
        case let e as EnvelopeError: return e.description
        case let e as ConfigurationError: return e.description
        case let e as StageRejection: return e.description
        case let e as SchemaViolation: return e.description
        default: return String(describing: type(of: error))
        }
    }
}

/// An error a processor throws when trying again will do: e.g. another replica changed a row
/// this unit read (an optimistic check failed). Retried without limit, like a lost connection.
public protocol RetryableError: Error {}
