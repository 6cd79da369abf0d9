import AuthorityCore
import Foundation
import HallmarkRuntime

// `hallmark-authority`: the Birthmark key-table authority (DESIGN.md §1 BM-TOKEN, PROV-1,
// REST). All settings come from `HALLMARK_…` variables; see AuthorityConfiguration.
let configuration: AuthorityConfiguration
do {
    configuration = try AuthorityConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("hallmark-authority: cannot start: \(error)\n".utf8))
    exit(1)
}
await ServiceRunner.run(AuthorityService.definition(configuration)) { context in
    try await AuthorityService.services(context, configuration: configuration)
}
