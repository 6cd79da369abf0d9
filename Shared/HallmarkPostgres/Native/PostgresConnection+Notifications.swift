import Foundation
import HallmarkCore
import libpq

// LISTEN/NOTIFY: the blocking wait for notifications, on the connection's queue.
extension PostgresConnection {
    /// The notifications that arrive within `timeout` on the channels this connection listens
    /// to (`LISTEN`), returned as soon as any is there; none when the time passed quietly.
    /// Throws ``PostgresError/Code/connectionLost`` once the connection is gone.
    ///
    /// The wait blocks the connection's queue (never the cooperative pool), so keep `timeout`
    /// short: it is also how long a caller's cancellation may take to be seen.
    public func notifications(waitingUpTo timeout: Duration) async throws -> [PostgresNotification] {
        let milliseconds = Int32(clamping: timeout.milliseconds)
        return try await runToCompletion { () throws(PostgresError) in
            try self.ensureConnected()
            var found = self.takeNotifications()
            guard found.isEmpty else { return found }
            var descriptor = pollfd(fd: PQsocket(self.connection), events: Int16(POLLIN), revents: 0)
            // A signal (EINTR) or a quiet wait: nothing yet, the caller asks again.
            guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
            guard PQconsumeInput(self.connection) == 1, PQstatus(self.connection) == CONNECTION_OK else {
                self.markBroken()
                throw PostgresError(code: .connectionLost, message: "the connection to the server was lost")
            }
            found = self.takeNotifications()
            return found
        }
    }

    /// What libpq has parsed so far, freed as it is copied.
    private func takeNotifications() -> [PostgresNotification] {
        var found: [PostgresNotification] = []
        while let notification = PQnotifies(connection) {
            found.append(
                PostgresNotification(
                    channel: String(cString: notification.pointee.relname),
                    payload: String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }
}
