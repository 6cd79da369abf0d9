import Foundation
import HallmarkCrypto
import HallmarkPostgres

extension LogStore {
    /// The logged level of every parent outside its submission that these submissions name, by
    /// hex hash (what ``Provenance/holds(in:)`` and ``CaptureTokens`` judge against).
    func parentLevels(_ provenances: [Provenance], on connection: PostgresConnection) async throws -> [String: Int] {
        let parents = Set(provenances.flatMap { $0.external.map(\.parent) })
        guard !parents.isEmpty else { return [:] }
        let leaves = try await leaves(parents.compactMap { try? Hex.decode($0, length: 32) }, on: connection)
        return Dictionary(leaves.map { (Hex.encode($0.key), Int($0.value.leaf.modificationLevel)) }) { first, _ in first }
    }
}
