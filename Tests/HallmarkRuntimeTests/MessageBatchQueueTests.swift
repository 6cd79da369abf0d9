import HallmarkKafka
import Synchronization
import Testing

@testable import HallmarkRuntime

/// The queue between the consumer and a batch worker: batches of what is waiting, a waiting
/// taker woken by the next message, a putter held at capacity, and a clean finish.
struct MessageBatchQueueTests {
    static func message(_ offset: Int64) -> KafkaMessage {
        KafkaMessage(topic: "t", partition: 0, offset: offset, key: nil, value: [])
    }

    @Test func takesWhatIsWaitingUpToTheLimitInOrder() async {
        let queue = MessageBatchQueue(capacity: 100)
        for i in 0..<10 { await queue.put(Self.message(Int64(i))) }
        #expect(await queue.take(limit: 4)?.map(\.offset) == [0, 1, 2, 3])
        #expect(await queue.take(limit: 100)?.map(\.offset) == [4, 5, 6, 7, 8, 9])
        queue.finish()
        #expect(await queue.take(limit: 4) == nil)
    }

    @Test func aWaitingTakerGetsTheNextMessage() async {
        let queue = MessageBatchQueue(capacity: 100)
        async let taken = queue.take(limit: 10)
        try? await Task.sleep(for: .milliseconds(50))
        await queue.put(Self.message(7))
        #expect(await taken?.map(\.offset) == [7])
    }

    @Test func finishWakesAWaitingTakerAndLeftoversAreTakenFirst() async {
        let queue = MessageBatchQueue(capacity: 100)
        async let none = queue.take(limit: 10)
        try? await Task.sleep(for: .milliseconds(50))
        queue.finish()
        #expect(await none == nil)

        let other = MessageBatchQueue(capacity: 100)
        await other.put(Self.message(1))
        other.finish()
        #expect(await other.take(limit: 10)?.map(\.offset) == [1])
        #expect(await other.take(limit: 10) == nil)
    }

    @Test func aPutterWaitsAtCapacityUntilATakeMakesRoom() async {
        let queue = MessageBatchQueue(capacity: 3)
        let done = Atomic<Int>(0)
        let putter = Task {
            for i in 0..<5 {
                await queue.put(Self.message(Int64(i)))
                done.add(1, ordering: .relaxed)
            }
        }
        try? await Task.sleep(for: .milliseconds(100))
        // The third put filled the queue and waits for room.
        #expect(done.load(ordering: .relaxed) == 2)
        #expect(await queue.take(limit: 10)?.map(\.offset) == [0, 1, 2])
        await putter.value
        #expect(await queue.take(limit: 10)?.map(\.offset) == [3, 4])
    }
}
