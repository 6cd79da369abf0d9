import AggregatorCore
import Foundation
import HallmarkRuntime

// hallmark-aggregator: Birthmark submissions, validation by the authority, the RFC 6962
// transparency log and verification (DESIGN §1 BM-LOG, §2).
// Configuration: `HALLMARK_AGGREGATOR_…` variables (see AggregatorConfiguration) plus the runtime's.
let configuration: AggregatorConfiguration
do {
    configuration = try AggregatorConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("hallmark-aggregator: cannot start: \(error)\n".utf8))
    exit(1)
}
await ServiceRunner.run(AggregatorService.definition(configuration)) { context in
    try AggregatorService.services(configuration, context: context)
}
