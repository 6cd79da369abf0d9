import EdgeCore
import Foundation
import HallmarkRuntime

// hallmark-edge: the HTTP face of the Birthmark half (DESIGN BM-EDGE): cameras submit as they do
// to the Birthmark reference server; answers come from the stages over Kafka.
// Configuration: `HALLMARK_EDGE_…` variables (see EdgeConfiguration) plus the runtime's.
let configuration: EdgeConfiguration
do {
    configuration = try EdgeConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("hallmark-edge: cannot start: \(error)\n".utf8))
    exit(1)
}
await ServiceRunner.run(EdgeService.definition(configuration)) { context in
    try EdgeService.services(configuration, context: context)
}
