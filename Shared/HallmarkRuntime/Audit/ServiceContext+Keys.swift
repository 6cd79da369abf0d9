import HallmarkCore
import HallmarkMessages

extension ServiceContext {
    /// The service that records key rotations made outside the service in `trail`
    /// (``KeyRotationRecorder``). Put it first among the services, so it stops last.
    /// - Parameter reloads: the keys after each reload, for a service that reloads them live.
    public func keyRotationRecorder(
        _ trail: AuditTrail, keys: [KeySet], reloads: AsyncStream<[KeySet]>? = nil
    ) throws
        -> KeyRotationRecorder
    {
        guard let database else {
            throw ConfigurationError(variable: "HALLMARK_POSTGRES_URL", reason: "the audit trail needs the database")
        }
        return KeyRotationRecorder(
            trail: trail, pool: database.pool, producer: producer, logger: logger, keys: keys,
            reloads: reloads)
    }
}
