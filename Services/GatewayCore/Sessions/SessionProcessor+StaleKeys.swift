import Foundation
import HallmarkCrypto
import HallmarkPostgres

extension SessionProcessor {
    /// Phase 2's second look at inbound messages that a cached key failed to open. The cache
    /// may hold a closed session's key (another replica closed the id and made it again): for
    /// the sessions whose live row, read in this transaction, is of another generation, the
    /// message is opened again with the row's key and the cache takes that key. One statement
    /// per batch, only when a cached key failed, so a flood of forgeries costs no read each.
    func reopen(_ batch: [Prepared], on connection: PostgresConnection) async throws -> [Prepared] {
        let failed = batch.indices.filter { i in
            guard case .inbound(_, _, .failure(let refusal)) = batch[i] else { return false }
            return refusal.cachedGeneration != nil
        }
        guard !failed.isEmpty else { return batch }
        let ids = Set(
            failed.compactMap { i -> String? in
                guard case .inbound(_, let inbound, _) = batch[i] else { return nil }
                return inbound.sessionID
            })
        let live = try await store.keys(ids.sorted(), on: connection)
        var out = batch
        for i in failed {
            guard case .inbound(let message, let inbound, .failure(let refusal)) = batch[i],
                let row = live[inbound.sessionID], row.generation != refusal.cachedGeneration
            else { continue }
            keys.put(inbound.sessionID, row)
            out[i] = .inbound(message, inbound, open(inbound, row, cached: false))
        }
        return out
    }
}
