import Foundation

/// What a witness remembers, per log origin: the size and root it last cosigned and that
/// checkpoint as it served it; and the evidence of any split view it was shown.
package struct WitnessState: Codable, Sendable, Hashable {
    /// One log's latest cosigned checkpoint.
    package struct Log: Codable, Sendable, Hashable {
        package var size: UInt64
        /// b64 of the root.
        package var root: String
        /// The note with the log's signatures that verified and this witness's cosignature.
        package var checkpoint: String
    }

    /// A checkpoint that contradicted what the witness had cosigned.
    package struct Evidence: Codable, Sendable, Hashable {
        package var origin: String
        /// The size and root cosigned before.
        package var cosignedSize: UInt64
        package var cosignedRoot: String
        /// The note that contradicted them, as received.
        package var shown: String
        /// When (Unix seconds).
        package var at: UInt64
    }

    package var logs: [String: Log] = [:]
    /// The latest pieces of evidence, at most ``maxEvidence``.
    package var evidence: [Evidence] = []

    package static let maxEvidence = 100

    package init() {}

    /// The state in the file at `path`, read without its lock (to look at it).
    package static func load(_ path: String) throws -> WitnessState {
        try WitnessStateFile(path: path).load()
    }
}

/// The state file: read and written whole, under an exclusive lock held across the check and
/// the update, and replaced atomically (written beside it, flushed, renamed) before the
/// witness answers.
final class WitnessStateFile: Sendable {
    let path: String
    private let lock: FileLock

    init(path: String) throws(WitnessError) {
        self.path = path
        lock = try FileLock(path: path + ".lock")
    }

    /// Runs `body` over the state as stored, then stores what it leaves when it returns
    /// `save: true`. Blocking: call it off the cooperative pool.
    func update<T>(_ body: (inout WitnessState) throws -> (T, save: Bool)) throws -> T {
        try lock.withLock {
            var state = try load()
            let (result, save) = try body(&state)
            if save { try store(state) }
            return result
        }
    }

    /// The state as stored (empty when there is no file yet).
    func load() throws -> WitnessState {
        guard let data = FileManager.default.contents(atPath: path) else { return WitnessState() }
        do {
            return try JSONDecoder().decode(WitnessState.self, from: data)
        } catch {
            throw WitnessError("the state file \(path) is not a witness state")
        }
    }

    private func store(_ state: WitnessState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(state)),
            let handle = FileHandle(forWritingAtPath: temporary)
        else {
            throw WitnessError("cannot write the state file beside \(path)")
        }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, path) == 0 else { throw WitnessError("cannot replace the state file \(path)") }
    }
}
