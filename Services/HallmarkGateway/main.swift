import Foundation
import GatewayCore
import HallmarkRuntime

// hallmark-gateway: ENC-1 payload envelopes over Kafka (DESIGN §1–2).
// Configuration: `HALLMARK_GATEWAY_…` variables (see GatewayConfiguration, EncryptionPolicy)
// plus the runtime's.
let configuration: GatewayConfiguration
do {
    configuration = try GatewayConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("hallmark-gateway: cannot start: \(error)\n".utf8))
    exit(1)
}
await ServiceRunner.run(GatewayService.definition(configuration)) { context in
    try GatewayService.services(configuration, context: context)
}
