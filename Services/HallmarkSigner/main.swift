import Foundation
import HallmarkRuntime
import SignerCore

// hallmark-signer: SIGN-1 / SIGN-FILES signing and verification over Kafka (DESIGN §1–2).
// Configuration: `HALLMARK_SIGNER_…` variables (see SignerConfiguration) plus the runtime's.
let configuration: SignerConfiguration
do {
    configuration = try SignerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("hallmark-signer: cannot start: \(error)\n".utf8))
    exit(1)
}
await ServiceRunner.run(SignerService.definition(configuration)) { context in
    try SignerService.services(configuration, context: context)
}
