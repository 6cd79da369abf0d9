import Foundation
import HallmarkCore
import HallmarkMessages

/// What a camera is answered about its submission: the Birthmark reference server's receipt
/// (`receipt_id`, `status`, `message`, `timestamp`), with the outcome once the aggregator gave
/// it: `status` `accepted`, `duplicate` or `rejected`, `reason`, each hash's `leaf_index`,
/// `tree_size`, and a certificate bundle's `signed_fields`. Until then `status` is `pending_validation`, as the reference says.
package enum ReceiptAnswer {
    /// The JSON for `receipt`, with the aggregator's answer (`hallmark.submission.result.v1`)
    /// when there is one.
    package static func json(receipt: MessageID, result: [UInt8]?, at time: Timestamp = .now()) -> [UInt8] {
        // Written member by member in sorted order (a dictionary and its sort were a fortieth of
        // the edge's CPU per submission); the aggregator's own strict answer (its schema was
        // checked when it was recorded) is read member by member from the parsed value: a
        // decoder was a twentieth, Foundation's first and then Hallmark's own.
        var w = JSONObjectWriter(capacity: 256)
        guard let result, let value = try? JSONReader.parse(result), let answer = Outcome(value) else {
            w.string("message", "Submission received and queued for validation")
            w.string("receipt_id", receipt.text)
            w.string("status", "pending_validation")
            w.string("timestamp", time.text)
            return w.finish()
        }
        w.value("leaves", answer.leaves.map(JSONValue.array))
        switch answer.status {
        case .accepted: w.string("message", "Submission validated and logged")
        case .duplicate: w.string("message", "Every image hash was already in the log")
        case .rejected: w.string("message", "Submission rejected: \(answer.reason?.rawValue ?? "unknown")")
        }
        w.string("reason", answer.reason?.rawValue)
        w.string("receipt_id", receipt.text)
        w.string("signed_fields", answer.signedFields)
        w.string("status", answer.status.rawValue)
        w.string("timestamp", answer.producedAt.text)
        w.number("tree_size", answer.treeSize)
        return w.finish()
    }

    /// The members of a `hallmark.submission.result.v1` the answer repeats; nil when one is
    /// not as its schema says (the answer is then pending, as for no result at all).
    private struct Outcome {
        let status: SubmissionResult.Status
        let reason: SubmissionResult.Reason?
        let producedAt: Timestamp
        let leaves: [JSONValue]?
        let treeSize: UInt64?
        /// A certificate bundle's signed form.
        let signedFields: String?

        init?(_ value: JSONValue) {
            guard let status = value["status"]?.string.flatMap(SubmissionResult.Status.init(rawValue:)),
                let producedAt = value["produced_at"]?.string.flatMap(Timestamp.init)
            else { return nil }
            (self.status, self.producedAt) = (status, producedAt)
            signedFields = value["signed_fields"]?.string
            switch value["reason"] {
            case nil, .null?: reason = nil
            case .string(let text)?:
                guard let reason = SubmissionResult.Reason(rawValue: text) else { return nil }
                self.reason = reason
            default: return nil
            }
            switch value["tree_size"] {
            case nil, .null?: treeSize = nil
            case let size?:
                guard let size = size.unsignedInteger else { return nil }
                treeSize = size
            }
            switch value["leaves"] {
            case nil, .null?: leaves = nil
            case .array(let list)?:
                var leaves: [JSONValue] = []
                leaves.reserveCapacity(list.count)
                for leaf in list {
                    guard let hash = leaf["image_hash"]?.string, let index = leaf["leaf_index"]?.unsignedInteger,
                        let status = leaf["status"]?.string.flatMap(SubmissionResult.Leaf.Status.init(rawValue:))
                    else { return nil }
                    leaves.append(
                        .object([
                            "image_hash": .string(hash), "leaf_index": .number(String(index)),
                            "status": .string(status.rawValue),
                        ]))
                }
                self.leaves = leaves
            default: return nil
            }
        }
    }
}
