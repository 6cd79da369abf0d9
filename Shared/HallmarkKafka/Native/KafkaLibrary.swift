import rdkafka

/// The librdkafka that is loaded at run time (not the one the headers came from).
public enum KafkaLibrary {
    /// The minimum version: 2.0.2 (Debian 12's) fails against Tansu with
    /// "ApiVersionRequest failed: Read underflow"; 2.2 and later work.
    public static let minimumVersion: Int32 = 0x0202_0000

    /// The loaded version as `rd_kafka_version()` encodes it (`0xMMmmrrxx`).
    public static var version: Int32 { rd_kafka_version() }

    /// The loaded version as text, e.g. `2.12.1`.
    public static var versionString: String { String(cString: rd_kafka_version_str()) }

    /// Throws ``KafkaError/Code/unsupportedLibrary`` with a one-line fix when the loaded
    /// librdkafka is older than 2.2.
    public static func requireSupportedVersion() throws {
        guard version >= minimumVersion else {
            throw KafkaError(
                .unsupportedLibrary,
                "librdkafka \(versionString) is loaded but Hallmark needs 2.2 or later (older ones cannot "
                    + "talk to Tansu): run deploy/local/setup and put .hallmark/lib first on LD_LIBRARY_PATH"
            )
        }
    }
}
