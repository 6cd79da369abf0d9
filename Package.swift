// swift-tools-version:6.0
import PackageDescription

/// Services load librdkafka from `.hallmark/lib` first (a `librdkafka.so.1` symlink to the
/// confluent-kafka wheel's build, which Tansu accepts); `LD_LIBRARY_PATH` still wins over this.
let localLib = Context.packageDirectory + "/.hallmark/lib"
let rpath: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", localLib])]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let coreMetrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let cryptoExtras = Target.Dependency.product(name: "CryptoExtras", package: "swift-crypto")

let package = Package(
    name: "Hallmark",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hallmark", targets: ["hallmark"]),
        .executable(name: "hallmark-authority", targets: ["hallmark-authority"]),
        .library(name: "HallmarkCrypto", targets: ["HallmarkCrypto"]),
        .library(name: "HallmarkKafka", targets: ["HallmarkKafka"]),
        .library(name: "HallmarkPostgres", targets: ["HallmarkPostgres"]),
        .library(name: "HallmarkRuntime", targets: ["HallmarkRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
    ],
    targets: [
        // C libraries from Debian's -dev packages. Only the `Native/` folders import them.
        .systemLibrary(name: "rdkafka", path: "Shared/CSystem/rdkafka", pkgConfig: "rdkafka",
                       providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "libpq", path: "Shared/CSystem/libpq", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "libcrypto", path: "Shared/CSystem/libcrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .target(name: "CHallmarkPBKDF2", path: "Shared/CHallmarkPBKDF2",
                cSettings: [.unsafeFlags(["-O3"])]),

        .target(name: "HallmarkCrypto",
                dependencies: [crypto, cryptoExtras, "CHallmarkPBKDF2", "libcrypto"],
                path: "Shared/HallmarkCrypto"),
        .target(name: "HallmarkKafka", dependencies: ["rdkafka", log], path: "Shared/HallmarkKafka"),
        .target(name: "HallmarkPostgres", dependencies: ["libpq", log], path: "Shared/HallmarkPostgres"),
        .target(name: "HallmarkEnvelope", dependencies: [crypto], path: "Shared/HallmarkEnvelope"),
        .target(name: "HallmarkRuntime",
                dependencies: ["HallmarkKafka", "HallmarkPostgres", "HallmarkEnvelope",
                               log, metrics, coreMetrics, lifecycle],
                path: "Shared/HallmarkRuntime"),

        .target(name: "SignerCore",
                dependencies: ["HallmarkRuntime", "HallmarkCrypto", "HallmarkEnvelope", "HallmarkPostgres",
                               log, metrics, lifecycle,
                               .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                               .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                path: "Services/SignerCore"),
        .executableTarget(name: "hallmark-signer", dependencies: ["SignerCore"],
                          path: "Services/HallmarkSigner", linkerSettings: rpath),

        .target(name: "AuthorityCore",
                dependencies: ["HallmarkRuntime", "HallmarkCrypto", "HallmarkEnvelope", log, metrics, lifecycle],
                path: "Services/AuthorityCore"),
        .executableTarget(name: "hallmark-authority", dependencies: ["AuthorityCore", "HallmarkRuntime"],
                          path: "Services/HallmarkAuthority", linkerSettings: rpath),

        .target(name: "HallmarkCLICore",
                dependencies: ["HallmarkRuntime", "HallmarkCrypto", "HallmarkEnvelope", "SignerCore", "AuthorityCore",
                               argumentParser],
                path: "Services/HallmarkCLICore"),
        .executableTarget(name: "hallmark", dependencies: ["HallmarkCLICore"],
                          path: "Services/HallmarkCLI", linkerSettings: rpath),

        .target(name: "HallmarkTestSupport", path: "Tests/HallmarkTestSupport"),
        .testTarget(name: "HallmarkCryptoTests", dependencies: ["HallmarkCrypto", "HallmarkCLICore"],
                    path: "Tests/HallmarkCryptoTests", linkerSettings: rpath),
        .testTarget(name: "HallmarkKafkaTests", dependencies: ["HallmarkKafka"],
                    path: "Tests/HallmarkKafkaTests", linkerSettings: rpath),
        .testTarget(name: "HallmarkPostgresTests", dependencies: ["HallmarkPostgres", "HallmarkTestSupport"],
                    path: "Tests/HallmarkPostgresTests", linkerSettings: rpath),
        .testTarget(name: "HallmarkRuntimeTests",
                    dependencies: ["HallmarkRuntime", "HallmarkCLICore", "HallmarkTestSupport"],
                    path: "Tests/HallmarkRuntimeTests", linkerSettings: rpath),
        .testTarget(name: "AuthorityTests",
                    dependencies: ["AuthorityCore", "HallmarkCLICore", "HallmarkTestSupport"],
                    path: "Tests/AuthorityTests", linkerSettings: rpath),
        .testTarget(name: "SignerTests",
                    dependencies: ["SignerCore", "HallmarkCLICore", "HallmarkTestSupport",
                                   .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                    path: "Tests/SignerTests", linkerSettings: rpath),
    ],
    swiftLanguageModes: [.v6]
)
