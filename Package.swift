// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "rollout",
    // What an app can embed RolloutClient in (docs/client.md "Apple platforms"): the Swift concurrency
    // runtime ships in the OS from these releases on, and with it AsyncStream and URLSession's async
    // API, without the back-deployment library.
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .executable(name: "rollout", targets: ["rollout"]),
        .executable(name: "rollout-device", targets: ["rollout-device"]),
        .library(name: "RolloutModel", targets: ["RolloutModel"]),
        // What an app embeds: packs and manifests on the device. Never libgit2.
        .library(name: "RolloutClient", targets: ["RolloutClient"]),
    ],
    targets: [
        // C libraries from Debian, reached through pkg-config.
        .systemLibrary(name: "CGit2", pkgConfig: "libgit2", providers: [.apt(["libgit2-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // zlib: inflate for gzip-compressed metrics exports (docs/metrics.md, "Gzip input"), deflate for
        // the packs ingest writes its rollups into (docs/pack-format.md, "Packing").
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // SHA-256, HMAC-SHA256 and Ed25519 (RFC 8032: manifests, indexes and key lists are signed with
        // it): CryptoKit on Apple platforms, OpenSSL's libcrypto everywhere else, so an app needs no C
        // library. Signing (the publisher's) exists only over OpenSSL.
        .target(
            name: "RolloutCrypto",
            dependencies: [
                .target(name: "CCrypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi]))
            ]
        ),
        // The pure model: packs, JSON, versions, locales, policy, lint. No I/O, no libgit2.
        .target(name: "RolloutModel", dependencies: ["RolloutCrypto"]),
        // The only code that touches libgit2.
        .target(
            name: "RolloutStore",
            dependencies: ["CGit2", "CZlib", "RolloutModel", "RolloutCrypto"],
            plugins: ["EmbedTemplate"]
        ),
        // Metrics: the streaming CSV reader (plain or gzip), ingest, rollups.
        .target(name: "RolloutIngest", dependencies: ["CZlib", "RolloutModel", "RolloutStore", "RolloutCrypto"]),
        // Publishing the static site devices download, and checking one as a device would.
        .target(name: "RolloutPublish", dependencies: ["RolloutModel", "RolloutStore", "RolloutCrypto"]),
        // `rollout conformance write`: the JSON test vectors a client port proves itself with
        // (docs/conformance.md), computed from the model alone. They publish nothing: no repository.
        .target(name: "RolloutConformance", dependencies: ["RolloutModel", "RolloutCrypto"]),
        // `rollout pack import`: reading String Catalogs, Android resources, i18next and ARB, and deciding
        // the packs they make (docs/import.md). The repository is handed in as values; no libgit2.
        .target(name: "RolloutImport", dependencies: ["RolloutModel"]),
        // `rollout report`: the one-page HTML report with inline SVG charts (docs/report.md).
        .target(name: "RolloutReport", dependencies: ["RolloutModel", "RolloutStore", "RolloutIngest"]),
        // The device side (docs/client.md): the pure model and crypto, nothing of the repository.
        .target(name: "RolloutClient", dependencies: ["RolloutModel", "RolloutCrypto"]),
        // Commands, argument parsing, output. Testable without a process. Not the client: its
        // URLSession transport would link FoundationNetworking and libcurl into every command.
        .target(
            name: "RolloutCLI",
            dependencies: [
                "RolloutModel", "RolloutStore", "RolloutPublish", "RolloutIngest", "RolloutCrypto", "RolloutReport",
                "RolloutImport", "RolloutConformance",
            ]),
        .executableTarget(name: "rollout", dependencies: ["RolloutCLI"]),
        // `rollout device` (docs/device.md): the client library as one device, in its own program that
        // rollout execs, found beside it or in PREFIX/libexec/rollout (docs/install.md).
        .target(name: "RolloutDevice", dependencies: ["RolloutCLI", "RolloutClient", "RolloutModel", "RolloutCrypto"]),
        .executableTarget(name: "rollout-device", dependencies: ["RolloutDevice", "RolloutCLI"]),

        // Build-time: embeds repo-template/ into RolloutStore so an installed binary needs no data files.
        .executableTarget(name: "embed-template", path: "Sources/embed-template"),
        .plugin(name: "EmbedTemplate", capability: .buildTool(), dependencies: ["embed-template"]),

        // Docs are tests (docs/architecture.md): runs each page's console blocks in a scratch directory and
        // compares or rewrites their outputs. Foundation and bash only; `make docs-update` runs `transcripts`.
        .target(name: "Transcripts"),
        .executableTarget(name: "transcripts", dependencies: ["Transcripts"]),

        // Benchmarks that need to run inside one process (docs/performance.md).
        .executableTarget(
            name: "rollout-bench-resolve", dependencies: ["RolloutModel", "RolloutCrypto"], path: "bench/resolve"),

        .testTarget(name: "RolloutModelTests", dependencies: ["RolloutModel", "RolloutCrypto"]),
        // CGit2: the mapping of libgit2 error classes to exit codes is tested with libgit2's own constants.
        .testTarget(
            name: "RolloutStoreTests", dependencies: ["RolloutStore", "RolloutModel", "RolloutCrypto", "CGit2"]),
        // CZlib: gzip bombs are made in memory with zlib's own deflate.
        .testTarget(name: "RolloutIngestTests", dependencies: ["RolloutIngest", "RolloutModel", "CZlib"]),
        .testTarget(
            name: "RolloutCLITests",
            dependencies: [
                "RolloutCLI", "RolloutModel", "RolloutStore", "RolloutIngest", "RolloutImport", "RolloutReport",
            ]),
        // Import's decisions on catalogs in memory, with no repository (docs/import.md).
        .testTarget(name: "RolloutImportTests", dependencies: ["RolloutImport", "RolloutModel"]),
        // The report's builder and its page drawn from values, with no repository (docs/report.md).
        .testTarget(name: "RolloutReportTests", dependencies: ["RolloutReport", "RolloutModel"]),
        // Publishing a site from a repository made in a temporary directory, and checking it as a device would.
        .testTarget(
            name: "RolloutPublishTests",
            dependencies: ["RolloutPublish", "RolloutStore", "RolloutModel", "RolloutCrypto"]),
        .testTarget(name: "RolloutClientTests", dependencies: ["RolloutClient", "RolloutModel", "RolloutCrypto"]),
        // Drives rollout on real git repositories in temporary directories: in the test process through
        // RolloutCLI.run (the table rollout-device runs, so `device` never execs), and the built
        // binaries where a test is about the process (exit status, streams, signals, several at once).
        .testTarget(
            name: "RolloutEndToEndTests",
            dependencies: [
                "rollout", "rollout-device", "RolloutCLI", "RolloutDevice", "RolloutModel", "RolloutCrypto",
                "RolloutClient",
            ]
        ),
        // The runner's own behaviour, and every page of docs/ and the README run as written against the
        // built binaries (docs/architecture.md, "Docs are tests").
        .testTarget(name: "TranscriptsTests", dependencies: ["Transcripts", "rollout", "rollout-device"]),
        // string() while the client refreshes (docs/performance.md).
        .executableTarget(
            name: "rollout-bench-client-reads", dependencies: ["RolloutClient"], path: "bench/client-reads",
            exclude: ["run.sh"]),
    ],
    swiftLanguageModes: [.v6]
)
