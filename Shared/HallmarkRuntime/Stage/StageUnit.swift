import Foundation
import HallmarkKafka
import HallmarkMessages

/// A unit of work once processed (one message on a key lane, or a batch): each message with
/// what to send for it.
struct StageUnit: Sendable {
    struct Item: Sendable {
        let message: KafkaMessage
        /// The message's envelope id, when it had a readable one.
        var id: MessageID?
        var outputs: [StageOutput] = []
    }

    var items: [Item]
    /// Messages processed now (not duplicates, not rejected).
    var processed = 0
    /// Messages already committed before (redeliveries).
    var duplicates = 0

    var messages: [KafkaMessage] { items.map(\.message) }
    var outputs: [StageOutput] { items.flatMap(\.outputs) }
}

/// What phase 1 made of one message.
enum PrepareOutcome<Prepared: Sendable>: Sendable {
    case prepared(StageMessage, Prepared)
    case rejected(StageRejection)
}

/// What phase 2 made of one message.
enum CommitOutcome: Sendable {
    /// Processed now.
    case processed([StageOutput])
    /// Committed before (a redelivery): its first answer again.
    case duplicate([StageOutput])
    /// Rejected. `recorded`: the outputs recorded for it in the inbox with its transaction
    /// (its rejected record, answer and the rejection's own outputs), sent as they are and
    /// given again to a redelivery; nil when nothing was recorded.
    case rejected(StageRejection, recorded: [StageOutput]? = nil)
}
