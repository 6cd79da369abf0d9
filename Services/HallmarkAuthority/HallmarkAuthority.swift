import AuthorityCore
import Foundation
import HallmarkRuntime

/// `hallmark-authority`: the Birthmark key-table authority (DESIGN.md §1 BM-TOKEN, PROV-1,
/// REST). All settings come from `HALLMARK_…` variables; see ``AuthorityConfiguration``.
@main
struct HallmarkAuthority {
    static func main() async {
        let configuration: AuthorityConfiguration
        do {
            configuration = try AuthorityConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("hallmark-authority: cannot start: \(error)\n".utf8))
            exit(1)
        }
        await serve(configuration)
    }

    /// Off the main actor, like every command's `run()`: the runner owns the process from here.
    nonisolated static func serve(_ configuration: AuthorityConfiguration) async -> Never {
        await ServiceRunner.run(AuthorityService.definition(configuration)) { context in
            try await AuthorityService.services(context, configuration: configuration)
        }
    }
}
