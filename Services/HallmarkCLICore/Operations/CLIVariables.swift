import HallmarkCore
import HallmarkMessages

/// The variables the `hallmark` CLI's own commands read, each declared once (`hallmark config`
/// lists them); the services' are declared by their configurations.
package enum CLIVariables {
    /// Signs admin commands and privacy requests (the `--operator-key` option's default).
    package static let operatorKeyFile = Setting.optionalText(
        "HALLMARK_OPERATOR_KEY_FILE", doc: "the operator's private key file, for admin and privacy requests")
    /// Checks `hallmark aggregator verify`'s answers (the `--public-key` option's default).
    package static let aggregatorPublicKey = Setting.optionalText(
        "HALLMARK_AGGREGATOR_PUBLIC_KEY",
        doc: "the aggregator's checkpoint public key (b64), for hallmark aggregator verify")
    /// `hallmark verify`: the log's C2SP verifier key.
    package static let aggregatorVKey = Setting.optionalText(
        "HALLMARK_AGGREGATOR_VKEY",
        doc: "the log's verifier key (C2SP vkey, from hallmark aggregator public-key), for hallmark verify")

    /// `hallmark probe`: the runtime's reference stage.
    package enum Probe {
        package static let input = Setting.topic(
            "HALLMARK_PROBE_INPUT", default: TopicCatalogue.probeRequests.name, doc: "the probe's requests")
        package static let output = Setting.topic(
            "HALLMARK_PROBE_OUTPUT", default: TopicCatalogue.probeResults.name, doc: "the probe's results")
        package static let delay = Setting.milliseconds(
            "HALLMARK_PROBE_DELAY_MS", default: .zero, in: 0...600_000, doc: "how long the probe works on a message")
        package static let database = Setting.flag(
            "HALLMARK_PROBE_DATABASE", default: true, doc: "whether each message commits in a transaction")
        package static let schema = Setting.identifier("HALLMARK_PROBE_SCHEMA", default: "probe", doc: "the probe's schema")
        package static let batches = Setting<Bool>(
            "HALLMARK_PROBE_DISPATCH", default: false, accepted: "lanes or batches", doc: "key lanes or partition batches",
            show: { $0 ? "batches" : "lanes" }, parse: { ["lanes": false, "batches": true][$0] })

        package static var all: [SettingDescription] {
            [
                input.description, output.description, delay.description, database.description, schema.description,
                batches.description,
            ]
        }
    }

    package static var all: [SettingDescription] {
        [operatorKeyFile.description, aggregatorPublicKey.description, aggregatorVKey.description]
    }
}
