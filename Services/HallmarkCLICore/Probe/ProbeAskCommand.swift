import ArgumentParser
import Foundation
import HallmarkRuntime
import ProbeCore

/// `hallmark probe-ask`: the runtime's request/reply reference pair (see ``ProbeAskService``).
package struct ProbeAskCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "probe-ask", abstract: "Run the request/reply reference pair (asks the probe, joins its replies).")

    package init() {}

    package func run() async throws {
        let configuration = try ProbeAskConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        await ServiceRunner.run(ProbeAskService.definition(configuration)) { context in
            try ProbeAskService.services(configuration, context: context)
        }
    }
}
