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
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let zip = Target.Dependency.product(name: "ZIPFoundation", package: "ZIPFoundation")

let package = Package(
    name: "Hallmark",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hallmark", targets: ["hallmark"]),
        .executable(name: "hallmark-authority", targets: ["hallmark-authority"]),
        .executable(name: "hallmark-signer", targets: ["hallmark-signer"]),
        .executable(name: "hallmark-gateway", targets: ["hallmark-gateway"]),
        .executable(name: "hallmark-aggregator", targets: ["hallmark-aggregator"]),
        .executable(name: "hallmark-edge", targets: ["hallmark-edge"]),
        .library(name: "HallmarkCrypto", targets: ["HallmarkCrypto"]),
        .library(name: "HallmarkKafka", targets: ["HallmarkKafka"]),
        .library(name: "HallmarkPostgres", targets: ["HallmarkPostgres"]),
        .library(name: "HallmarkRuntime", targets: ["HallmarkRuntime"]),
        .library(name: "HallmarkMessages", targets: ["HallmarkMessages"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Already in the graph through Hummingbird; the edge's cached-read handler needs its
        // HTTP part types.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // Already in the graph through Hummingbird; the edge answers HTTP/1 parser errors
        // (HTTPParserError, the request decoder) itself, with its JSON error.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // Tests only: reads deploy/k8s and deploy/compose (DeployTests). Small, C libyaml inside.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // X.509 (DESIGN BM-CERT): device certificates issued, read and chained under RFC 5280,
        // which swift-crypto has none of. Both are already in the graph through Hummingbird's.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // HTTP (DESIGN's fixed choice): the C2SP witness, and the edge after it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // C libraries from Debian's -dev packages. Only the `Native/` folders import them.
        .systemLibrary(
            name: "rdkafka", path: "Shared/CSystem/rdkafka", pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(
            name: "libpq", path: "Shared/CSystem/libpq", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "libcrypto", path: "Shared/CSystem/libcrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "zlib", path: "Shared/CSystem/zlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // glibc's allocator controls (`mallopt`), which Glibc's module leaves out.
        .systemLibrary(name: "malloc", path: "Shared/CSystem/malloc"),
        .target(
            name: "CHallmarkPBKDF2", path: "Shared/CHallmarkPBKDF2",
            cSettings: [.unsafeFlags(["-O3"])]),

        .target(name: "HallmarkCore", path: "Shared/HallmarkCore"),
        .target(
            name: "HallmarkCrypto",
            dependencies: ["HallmarkCore", crypto, cryptoExtras, "CHallmarkPBKDF2", "libcrypto"],
            path: "Shared/HallmarkCrypto"),
        .target(
            name: "HallmarkCertificates",
            dependencies: [
                crypto, .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Shared/HallmarkCertificates"),
        .target(name: "HallmarkKafka", dependencies: ["rdkafka", "HallmarkCore", log], path: "Shared/HallmarkKafka"),
        .target(name: "HallmarkPostgres", dependencies: ["libpq", "HallmarkCore", log], path: "Shared/HallmarkPostgres"),
        .target(
            name: "HallmarkMessages", dependencies: ["HallmarkCore", "HallmarkCrypto"], path: "Shared/HallmarkMessages",
            plugins: ["SchemaEmbedderPlugin"]),
        // proto-json/ reaches the binary through this plugin: one copy of each schema, no resources to ship.
        .plugin(
            name: "SchemaEmbedderPlugin", capability: .buildTool(), path: "Shared/SchemaEmbedderPlugin",
            exclude: ["embed-schemas.sh"]),
        .target(
            name: "HallmarkRuntime",
            dependencies: [
                "HallmarkCore", "HallmarkCrypto", "HallmarkKafka", "HallmarkPostgres", "HallmarkMessages", "malloc",
                log, metrics, coreMetrics, lifecycle,
            ],
            path: "Shared/HallmarkRuntime"),
        .target(
            name: "HallmarkSmileID",
            dependencies: ["HallmarkCore", "HallmarkCrypto", log, metrics, lifecycle, unixSignals],
            path: "Shared/HallmarkSmileID"),
        // The strict zip reader of SIGN-FILES uploads, with its memory budget and worker pool.
        .target(
            name: "HallmarkZip", dependencies: ["HallmarkCrypto", "zlib", log, metrics, lifecycle],
            path: "Shared/HallmarkZip"),

        .target(
            name: "SignerCore",
            dependencies: [
                "HallmarkRuntime", "HallmarkSmileID", "HallmarkZip", "HallmarkMessages", "HallmarkCrypto",
                "HallmarkPostgres", log, metrics, lifecycle,
            ],
            path: "Services/SignerCore"),
        .executableTarget(
            name: "hallmark-signer", dependencies: ["SignerCore"],
            path: "Services/HallmarkSigner", linkerSettings: rpath),

        .target(
            name: "GatewayCore",
            dependencies: [
                "HallmarkRuntime", "HallmarkSmileID", "HallmarkZip", "HallmarkMessages", "HallmarkCrypto", log, metrics,
                lifecycle,
            ],
            path: "Services/GatewayCore"),
        .executableTarget(
            name: "hallmark-gateway", dependencies: ["GatewayCore", "HallmarkRuntime"],
            path: "Services/HallmarkGateway", linkerSettings: rpath),

        .target(
            name: "AuthorityCore",
            dependencies: [
                "HallmarkRuntime", "HallmarkCrypto", "HallmarkMessages", "HallmarkCertificates", crypto, log, metrics, lifecycle,
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Services/AuthorityCore"),
        .executableTarget(
            name: "hallmark-authority", dependencies: ["AuthorityCore", "HallmarkRuntime"],
            path: "Services/HallmarkAuthority", linkerSettings: rpath),

        .target(
            name: "AggregatorCore",
            dependencies: [
                "HallmarkRuntime", "HallmarkCrypto", "HallmarkMessages", "HallmarkCertificates", crypto, log, metrics, lifecycle,
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Services/AggregatorCore"),
        .executableTarget(
            name: "hallmark-aggregator", dependencies: ["AggregatorCore", "HallmarkRuntime"],
            path: "Services/HallmarkAggregator", linkerSettings: rpath),

        // The HTTP face of the Birthmark half (DESIGN BM-EDGE).
        .target(
            name: "EdgeCore",
            dependencies: [
                "HallmarkRuntime", "HallmarkCrypto", "HallmarkMessages", "HallmarkKafka", log, metrics, lifecycle,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Services/EdgeCore"),
        .executableTarget(
            name: "hallmark-edge", dependencies: ["EdgeCore", "HallmarkRuntime"],
            path: "Services/HallmarkEdge", linkerSettings: rpath),

        // A C2SP tlog-witness anyone can run (hallmark witness), over HTTP.
        .target(
            name: "WitnessCore",
            dependencies: [
                "HallmarkCore", "HallmarkCrypto", log, metrics, lifecycle,
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Services/WitnessCore"),

        // The runtime's reference stages (probe, request/reply pair, ordered writer).
        .target(name: "ProbeCore", dependencies: ["HallmarkRuntime", "HallmarkMessages"], path: "Services/ProbeCore"),
        // Client-side helpers: playing a camera, waiting for answers on a topic.
        .target(
            name: "HallmarkClient",
            dependencies: ["HallmarkKafka", "HallmarkMessages", "HallmarkCrypto", crypto, log],
            path: "Services/HallmarkClient"),
        .target(
            name: "HallmarkBench",
            dependencies: [
                "HallmarkRuntime", "HallmarkCrypto", "HallmarkMessages", "HallmarkSmileID", "SignerCore",
                "AuthorityCore", "AggregatorCore", "ProbeCore", "HallmarkClient", "WitnessCore", "EdgeCore", argumentParser,
                lifecycle,
                // `bench edge`'s floor: a bare HTTP/1 front on SwiftNIO (already in the graph
                // through the edge), the least any HTTP face of the pipeline pays.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Services/HallmarkBench"),
        .target(
            name: "HallmarkCLICore",
            dependencies: [
                "HallmarkRuntime", "HallmarkPostgres", "HallmarkCrypto", "HallmarkMessages", "HallmarkSmileID", "SignerCore",
                "GatewayCore",
                "AuthorityCore", "AggregatorCore", "ProbeCore", "HallmarkClient", "HallmarkBench", "WitnessCore", "EdgeCore",
                argumentParser, lifecycle,
                // `hallmark metrics serve`'s HTTP server (already in the graph through the edge).
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Services/HallmarkCLICore"),
        .executableTarget(
            name: "hallmark", dependencies: ["HallmarkCLICore"],
            path: "Services/HallmarkCLI", linkerSettings: rpath),

        .target(
            name: "HallmarkTestSupport",
            dependencies: [
                "HallmarkCore", "HallmarkMessages", "HallmarkCrypto", "HallmarkKafka", "HallmarkPostgres", "HallmarkSubprocess",
                crypto, log,
            ],
            path: "Tests/HallmarkTestSupport"),
        .target(
            name: "HallmarkStageTesting", dependencies: ["HallmarkKafka", "HallmarkRuntime"],
            path: "Tests/HallmarkStageTesting"),
        .testTarget(
            name: "HallmarkMessagesTests",
            dependencies: ["HallmarkMessages", "HallmarkCore", "HallmarkCrypto", "HallmarkTestSupport"],
            path: "Tests/HallmarkMessagesTests"),
        .testTarget(
            name: "HallmarkCryptoTests", dependencies: ["HallmarkCrypto", "HallmarkCLICore", "HallmarkTestSupport"],
            path: "Tests/HallmarkCryptoTests", linkerSettings: rpath),
        .testTarget(
            name: "HallmarkCertificatesTests",
            dependencies: [
                "HallmarkCertificates", "HallmarkTestSupport", crypto, .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/HallmarkCertificatesTests", linkerSettings: rpath),
        .testTarget(
            name: "HallmarkKafkaTests", dependencies: ["HallmarkKafka", "HallmarkCore", "HallmarkTestSupport"],
            path: "Tests/HallmarkKafkaTests", linkerSettings: rpath),
        .testTarget(
            name: "HallmarkPostgresTests", dependencies: ["HallmarkPostgres", "HallmarkTestSupport"],
            path: "Tests/HallmarkPostgresTests", linkerSettings: rpath),
        .testTarget(
            name: "HallmarkRuntimeTests",
            dependencies: [
                "HallmarkRuntime", "ProbeCore", "HallmarkTestSupport", "HallmarkStageTesting", "HallmarkSubprocess",
            ],
            path: "Tests/HallmarkRuntimeTests", linkerSettings: rpath),
        .testTarget(
            name: "AuthorityTests",
            dependencies: [
                "AuthorityCore", "HallmarkClient", "HallmarkCLICore", "HallmarkTestSupport", "HallmarkCertificates", crypto,
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/AuthorityTests", linkerSettings: rpath),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "GatewayCore", "SignerCore", "HallmarkSmileID", "HallmarkZip", "HallmarkCLICore", "HallmarkClient",
                "HallmarkTestSupport", "HallmarkStageTesting",
            ],
            path: "Tests/GatewayTests", linkerSettings: rpath),
        .testTarget(
            name: "WitnessTests", dependencies: ["WitnessCore", "HallmarkCrypto", "HallmarkTestSupport", lifecycle],
            path: "Tests/WitnessTests", linkerSettings: rpath),
        .testTarget(
            name: "AggregatorTests",
            dependencies: [
                "AggregatorCore", "AuthorityCore", "EdgeCore", "HallmarkCLICore", "HallmarkClient", "HallmarkTestSupport",
                "WitnessCore", "HallmarkSubprocess", lifecycle,
                // The one-process walk of a submission (SubmissionWalkTests): the edge's router
                // driven in process (RouterClient, not HummingbirdTesting: see there).
                "HallmarkStageTesting", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/AggregatorTests", linkerSettings: rpath),
        // Fuzzing (docs/fuzzing.md): the targets are a library the normal suite replays the
        // committed corpora through; the libFuzzer executable is added below only for
        // deploy/local/fuzz.
        .target(
            name: "HallmarkFuzzTargets",
            dependencies: [
                "HallmarkCore", "HallmarkCrypto", "HallmarkMessages", "HallmarkRuntime", "HallmarkKafka",
                "HallmarkSmileID", "HallmarkZip", "SignerCore", "GatewayCore", "AuthorityCore",
                "HallmarkTestSupport", log,
            ],
            path: "Tests/FuzzTargets"),
        .testTarget(
            name: "FuzzCorpusTests", dependencies: ["HallmarkFuzzTargets", "HallmarkTestSupport"],
            path: "Tests/FuzzCorpusTests", linkerSettings: rpath),
        // Tests only: runs programs with posix_spawn and waitpid (Foundation's Process can hang).
        .target(name: "HallmarkSubprocess", path: "Tests/HallmarkSubprocess"),
        .testTarget(
            name: "DeployTests",
            dependencies: [.product(name: "Yams", package: "Yams"), "HallmarkSubprocess", "HallmarkCLICore", "HallmarkRuntime"],
            path: "Tests/DeployTests", linkerSettings: rpath),
        .testTarget(
            name: "OperationsTests",
            dependencies: [
                "HallmarkCLICore", "HallmarkMessages", "HallmarkKafka", "HallmarkCore", "HallmarkPostgres", "HallmarkTestSupport",
                "HallmarkSubprocess", log,
            ],
            path: "Tests/OperationsTests", linkerSettings: rpath),
        .testTarget(
            name: "SignerTests",
            dependencies: [
                "SignerCore", "HallmarkSmileID", "HallmarkZip", "HallmarkCLICore", "HallmarkClient", "HallmarkTestSupport",
                "zlib", zip,
            ],
            path: "Tests/SignerTests", linkerSettings: rpath),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer executable, only when deploy/local/fuzz builds it (HALLMARK_FUZZ=1, with
// -sanitize=fuzzer,address). Its entry point starts libFuzzer's driver, so it cannot link
// in a normal build; lld, because gold cannot link the sanitizer runtimes' symbols here.
if Context.environment["HALLMARK_FUZZ"] == "1" {
    package.products.append(.executable(name: "hallmark-fuzz", targets: ["hallmark-fuzz"]))
    package.targets.append(
        .executableTarget(
            name: "hallmark-fuzz", dependencies: ["HallmarkFuzzTargets"], path: "Tests/Fuzz/Sources",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])] + rpath))
}
