import HallmarkKafka
import HallmarkTestSupport
import Synchronization

@testable import HallmarkRuntime

/// A ``StageDispatcher`` with its pause and resume calls recorded, and messages whose slot is
/// written in their key, so a test says exactly where each message goes.
final class DispatcherFixture: Sendable {
    enum Flow: Equatable, CustomStringConvertible {
        case pause([KafkaTopicPartition]), resume([KafkaTopicPartition])
        var description: String {
            switch self {
            case .pause(let p): "pause \(p)"
            case .resume(let p): "resume \(p)"
            }
        }
    }

    let dispatcher: StageDispatcher
    let executor = ManualExecutor()
    /// Pause and resume calls, in a box the dispatcher's callbacks can share.
    private final class FlowLog: Sendable {
        let calls = Mutex<[Flow]>([])
    }
    private let flows = FlowLog()

    init(
        slots: Int, depth: Int, maxInFlight: Int = 1_000, maxBytes: Int = 1 << 30,
        routing: StageDispatcher.Routing? = nil
    ) {
        let flows = self.flows
        dispatcher = StageDispatcher(
            slots: slots, depth: depth, maxInFlight: maxInFlight, maxBytes: maxBytes,
            routing: routing ?? .fixed { Int($0.key![0]) },
            pause: { p in flows.calls.withLock { $0.append(.pause(p)) } },
            resume: { p in flows.calls.withLock { $0.append(.resume(p)) } })
    }

    /// Every pause and resume call so far, in order.
    var flow: [Flow] { flows.calls.withLock { $0 } }

    static func partition(_ p: Int32) -> KafkaTopicPartition { KafkaTopicPartition(topic: "t", partition: p) }

    /// A message of partition `partition` at `offset` for `slot`, with `bytes` of value
    /// (``StageDispatcher/size(of:)`` adds its key and 64 bytes).
    static func message(_ partition: Int32, _ offset: Int64, slot: Int, bytes: Int = 10) -> KafkaMessage {
        KafkaMessage(
            topic: "t", partition: partition, offset: offset, key: [UInt8(slot)],
            value: [UInt8](repeating: 0x61, count: bytes))
    }

    /// Starts `put` and runs it as far as it goes: `returned` tells whether it had to wait.
    func put(_ message: KafkaMessage) -> ManualCall<Bool> {
        let dispatcher = self.dispatcher
        return ManualCall(on: executor) {
            await dispatcher.put(message)
            return true
        }
    }

    /// Starts `take` and runs it as far as it goes.
    func take(slot: Int, limit: Int = 1) -> ManualCall<[KafkaMessage]?> {
        let dispatcher = self.dispatcher
        return ManualCall(on: executor) { await dispatcher.take(slot: slot, limit: limit) }
    }

    /// What a slot hands out at once; throws when it would wait (or is finished and empty).
    func takeNow(slot: Int, limit: Int = 1) throws -> [KafkaMessage] {
        let call = take(slot: slot, limit: limit)
        guard let taken = call.value, let messages = taken else {
            throw HarnessError("slot \(slot) had nothing to hand out")
        }
        return messages
    }
}

/// Where a message came from: enough to compare what a slot hands out with what was put.
struct Position: Hashable, CustomStringConvertible {
    let partition: Int32
    let offset: Int64
    init(_ partition: Int32, _ offset: Int64) {
        self.partition = partition
        self.offset = offset
    }
    init(_ message: KafkaMessage) { self.init(message.partition, message.offset) }
    var description: String { "\(partition)@\(offset)" }
}

extension [KafkaMessage] {
    var positions: [Position] { map(Position.init) }
}

extension ManualCall where Value == [KafkaMessage]? {
    /// Whether the `take` returned, and returned nil: its slot is finished and empty.
    var returnedEnd: Bool {
        if case .some(.none) = value { true } else { false }
    }
}
