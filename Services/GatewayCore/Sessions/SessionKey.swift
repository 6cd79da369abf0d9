import Foundation

/// An unsealed session key and the generation of the session row it belongs to. A session id
/// can be closed and taken again; each time its row gets a new generation, and every counter
/// statement matches the generation of the key that opened or sealed the message, so a key
/// that a replica still holds for a closed session never counts for the new one.
public struct SessionKey: Sendable, Equatable {
    public let key: Data
    public let generation: Int64

    public init(key: Data, generation: Int64) {
        self.key = key
        self.generation = generation
    }
}
