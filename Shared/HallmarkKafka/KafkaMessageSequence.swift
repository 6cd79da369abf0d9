/// Messages as a consumer, or a reader of a shared consumer, hands them on. Taking one frees
/// the slot it held in the buffer it came from (`took`), so fetching goes on.
public struct KafkaMessageSequence: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    let stream: AsyncStream<KafkaMessage>
    /// Frees the slot of a message taken.
    let took: @Sendable () -> Void

    init(stream: AsyncStream<KafkaMessage>, took: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.took = took
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<KafkaMessage>.AsyncIterator
        let took: @Sendable () -> Void

        public mutating func next() async -> KafkaMessage? {
            let message = await base.next()
            if message != nil { took() }
            return message
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), took: took)
    }
}
