import Foundation
import HallmarkCore
import HallmarkSubprocess

/// PyPI's CloudEvents SDK reading topics to their end (`Tests/Verifiers/cloudevents_check.py`,
/// in the project's venv): every message must be a CloudEvent in binary content mode whose id,
/// type, time, data schema and correlation id are its payload's, and whose data is its payload.
package struct CloudEventsCheck: Sendable {
    /// The script's exit status and everything it printed.
    package let status: Int32
    package let output: String
    /// Messages read per topic.
    package let checked: [String: Int]

    /// Reads `required` (each must hold a message) and `others` to their ends.
    package static func run(brokers: String, required: [String], others: [String] = []) async throws -> CloudEventsCheck {
        let result = try await VerifierScript.run(
            "cloudevents_check.py",
            ["--brokers", brokers] + required.flatMap { ["--require", $0] } + others.flatMap { ["--topic", $0] })
        let summary = result.output.split(separator: "\n").last.flatMap { try? JSONReader.parse(Array($0.utf8)) }?.object
        let checked = (summary?["checked"]?.object ?? [:]).compactMapValues(\.integer)
        return CloudEventsCheck(status: result.status, output: result.output, checked: checked)
    }

    /// Whether every message read was a matching CloudEvent and every required topic held one.
    package var passed: Bool { status == 0 }
}
