import ArgumentParser
import AggregatorCore
import EdgeCore
import AuthorityCore
import Foundation
import WitnessCore
import GatewayCore
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import ProbeCore
import SignerCore

/// `hallmark config`: every declared `HALLMARK_…` variable with its default, its value here
/// and what it takes; `--check` reads a service's whole configuration as the service would at
/// start, without starting it.
package struct ConfigCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "List the HALLMARK_ variables (default, value, accepted values), or check a service's configuration.")

    /// The services whose configuration `--check` reads.
    package enum Service: String, ExpressibleByArgument, CaseIterable, Sendable {
        case signer, gateway, authority, aggregator, edge

        /// The service's own pool size setting, with its default.
        package var postgresPoolSize: Setting<Int> {
            switch self {
            case .authority: AuthorityConfiguration.postgresPoolSize
            default: PostgresConfiguration.Variable.poolSize(service: rawValue)
            }
        }
    }

    @Option(help: "Only this service's own variables (signer, gateway, authority, aggregator).")
    var service: Service?
    @Flag(help: "Read the service's configuration from this environment as it would at start; exit 1 on a bad value.")
    var check = false

    package init() {}

    package func validate() throws {
        if check, service == nil { throw ValidationError("--check needs --service") }
    }

    package func run() throws {
        let environment = ProcessInfo.processInfo.environment
        if check {
            guard let service else { return }
            do {
                try Self.check(service, environment)
                print("\(service.rawValue): configuration valid")
            } catch {
                print("\(service.rawValue): \(error)")
                throw ExitCode(1)
            }
            return
        }
        print(Self.listing(service: service, environment: environment))
    }

    /// Every section of declared variables for `service` (all services when nil).
    package static func sections(service: Service?) -> [(title: String, variables: [SettingDescription])] {
        var sections: [(String, [SettingDescription])] = [
            ("Kafka (every service)", KafkaConfiguration.variables),
            (
                "Stages (every service; each flow variable also per stage as HALLMARK_<SERVICE>_<STAGE>_<NAME>)",
                StageConfiguration.variables
            ),
            (
                "Service (every service: logs, metrics, inbox, audit, privacy, PostgreSQL, health file)",
                ServiceRunner.Variable.all
            ),
        ]
        let own: [(Service, [SettingDescription])] = [
            (.signer, SignerConfiguration.variables), (.gateway, GatewayConfiguration.variables),
            (.authority, AuthorityConfiguration.variables), (.aggregator, AggregatorConfiguration.variables),
            (.edge, EdgeConfiguration.variables),
        ]
        for (name, variables) in own where service == nil || service == name {
            let database = [
                PostgresConfiguration.Variable.url(service: name.rawValue).description, name.postgresPoolSize.description,
            ]
            sections.append((name.rawValue, database + variables))
        }
        if service == nil {
            sections.append(("the hallmark CLI's own commands", CLIVariables.all))
            sections.append(("hallmark witness (a C2SP transparency-log witness)", WitnessConfiguration.variables))
            sections.append(
                (
                    "hallmark probe (the runtime's reference stage)",
                    [PostgresConfiguration.Variable.url(service: "probe").description] + CLIVariables.Probe.all
                ))
            sections.append(("hallmark probe-ask (the request/reply reference pair)", ProbeAskConfiguration.variables))
        }
        return sections
    }

    /// The listing: per section, a variable per line with its default and value here, then
    /// what it takes and does.
    package static func listing(service: Service?, environment: [String: String]) -> String {
        var lines: [String] = []
        for (title, variables) in sections(service: service) {
            lines.append("# \(title)")
            for v in variables {
                let value = v.shown(in: environment).map { "  = \($0)" } ?? ""
                let fallback = v.defaultValue.isEmpty ? "" : "  (default \(v.defaultValue))"
                lines.append("\(v.name)\(fallback)\(value)")
                lines.append("    \(v.doc); \(v.accepted)")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// Reads the service's configuration, and the Kafka and stage settings it starts with.
    package static func check(_ service: Service, _ environment: [String: String]) throws {
        _ = try KafkaConfiguration.fromEnvironment(environment)
        _ = try StageConfiguration.fromEnvironment(environment, service: service.rawValue, inputs: [])
        try ServiceRunner.checkEnvironment(environment, service: service.rawValue, poolSize: service.postgresPoolSize)
        switch service {
        case .signer: _ = try SignerConfiguration.fromEnvironment(environment)
        case .gateway: _ = try GatewayConfiguration.fromEnvironment(environment)
        case .authority: _ = try AuthorityConfiguration.fromEnvironment(environment)
        case .aggregator: _ = try AggregatorConfiguration.fromEnvironment(environment)
        case .edge: _ = try EdgeConfiguration.fromEnvironment(environment)
        }
    }
}
