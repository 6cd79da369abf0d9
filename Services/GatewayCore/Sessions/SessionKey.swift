import Foundation

/// An unsealed session key and the generation of the session row it belongs to. A session id
/// can be closed and taken again; each time its row gets a new generation, and every counter
/// statement matches the generation of the key that opened or sealed the message, so a key
/// that a replica still holds for a closed session never counts for the new one.
package struct SessionKey: Sendable, Equatable {
    package let key: Data
    package let generation: Int64

    package init(key: Data, generation: Int64) {
        self.key = key
        self.generation = generation
    }
}
