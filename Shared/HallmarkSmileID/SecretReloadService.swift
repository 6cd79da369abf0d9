import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the ``SecretStore`` on every SIGHUP, without a restart.
public struct SecretReloadService: Service {
    let store: SecretStore
    let logger: Logger

    public init(store: SecretStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            store.reload(logger: logger)
        }
    }
}
