import Foundation
import HallmarkCore
import HallmarkMessages

/// What a camera is answered about its submission: the Birthmark reference server's receipt
/// (`receipt_id`, `status`, `message`, `timestamp`), with the outcome once the aggregator gave
/// it: `status` `accepted`, `duplicate` or `rejected`, `reason`, each hash's `leaf_index`, and
/// `tree_size`. Until then `status` is `pending_validation`, as the reference says.
package enum ReceiptAnswer {
    /// The JSON for `receipt`, with the aggregator's answer (`hallmark.submission.result.v1`)
    /// when there is one.
    package static func json(receipt: MessageID, result: [UInt8]?, at time: Timestamp = .now()) -> [UInt8] {
        var object: [String: JSONValue] = ["receipt_id": .string(receipt.text)]
        // The aggregator's own strict answer, read by Hallmark's reader: Foundation's decoder
        // was a twentieth of the edge's CPU per submission.
        guard let result, let value = try? JSONReader.parse(result),
            let answer = try? JSONCoding.decode(Message<SubmissionResult>.self, from: value)
        else {
            object["status"] = .string("pending_validation")
            object["message"] = .string("Submission received and queued for validation")
            object["timestamp"] = .string(time.text)
            return JSONWriter.write(.object(object))
        }
        let body = answer.body
        object["status"] = .string(body.status.rawValue)
        object["timestamp"] = .string(answer.producedAt.text)
        switch body.status {
        case .accepted: object["message"] = .string("Submission validated and logged")
        case .duplicate: object["message"] = .string("Every image hash was already in the log")
        case .rejected: object["message"] = .string("Submission rejected: \(body.reason?.rawValue ?? "unknown")")
        }
        if let reason = body.reason { object["reason"] = .string(reason.rawValue) }
        if let leaves = body.leaves {
            object["leaves"] = .array(
                leaves.map {
                    .object([
                        "image_hash": .string($0.imageHash), "leaf_index": .number(String($0.leafIndex)),
                        "status": .string($0.status.rawValue),
                    ])
                })
        }
        if let size = body.treeSize { object["tree_size"] = .number(String(size)) }
        return JSONWriter.write(.object(object))
    }
}
