// swift-tools-version:6.0
// flowspec: integration-flow specs → state-machine model → lint, documentation site, conformance check.
import PackageDescription

let package = Package(
    name: "flowspec",
    platforms: [.macOS(.v15)],  // Synchronization.Mutex
    products: [
        .executable(name: "flowspec", targets: ["flowspec"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Already in the graph through Hummingbird; declared because FlowMocks imports HTTPTypes.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        // C libraries from Debian: libcmark-gfm-dev + libcmark-gfm-extensions-dev, libssl-dev.
        .systemLibrary(
            name: "CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),

        // Core: no NIO anywhere below this line, so these build and test in seconds.
        .target(name: "FlowModel"),
        .target(name: "FlowParser", dependencies: ["FlowModel", "CCmarkGFM", "Yams"]),
        .target(name: "FlowLint", dependencies: ["FlowModel", "FlowParser"]),
        // Mermaid, Graphviz and JSON views of the model, and the spec writer used by `import`.
        .target(name: "FlowExport", dependencies: ["FlowModel"]),
        .target(
            name: "FlowSite",
            dependencies: [
                "FlowModel", "FlowParser", "FlowLint",
                .product(name: "Yams", package: "Yams"),
            ],
            // The default theme is embedded in the binary by EmbedThemePlugin (no resource bundle
            // to ship beside the executable on Linux).
            exclude: ["Theme"],
            plugins: ["EmbedThemePlugin"]
        ),
        .executableTarget(name: "FlowSiteEmbedTheme", path: "Plugins/FlowSiteEmbedTheme"),
        .plugin(name: "EmbedThemePlugin", capability: .buildTool(), dependencies: ["FlowSiteEmbedTheme"]),
        // JOSE by hand on OpenSSL's EVP API: the checker must emit byte-exact malformed tokens.
        .target(name: "JOSE", dependencies: ["COpenSSL"]),

        // Servers from here on: the mock identity provider (flowspec plays Apple) and the
        // spec-driven mock backend.
        .target(
            name: "FlowMocks",
            dependencies: [
                "FlowModel", "FlowParser", "JOSE",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        // The checker: planner, runner, token suite, verdicts and reports. Live backends through
        // FlowMocks' one HTTP client (AHCTransport).
        .target(
            name: "FlowCheck",
            dependencies: ["FlowModel", "FlowParser", "FlowMocks", "JOSE"]
        ),

        // `flowspec serve`: the site preview server (Hummingbird), kept out of FlowSite so the site
        // builds and tests without NIO.
        .target(
            name: "FlowServe",
            dependencies: [
                "FlowModel", "FlowSite", "FlowLint",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FlowCLI",
            dependencies: [
                "FlowModel", "FlowParser", "FlowLint", "FlowExport", "FlowSite", "FlowServe", "FlowMocks", "FlowCheck",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "flowspec", dependencies: ["FlowCLI"]),

        // What several test targets share (running processes, the built binary, the package root).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "FlowModelTests", dependencies: ["FlowModel"]),
        .testTarget(name: "FlowParserTests", dependencies: ["FlowParser", "FlowModel", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "FlowExportTests", dependencies: ["FlowExport", "FlowParser", "FlowLint", "FlowModel"]),
        // swift-mustache is the reference the theme renderer's output is compared with, byte for byte.
        .testTarget(
            name: "FlowSiteTests",
            dependencies: ["FlowSite", "FlowParser", "FlowModel", "FlowLint", .product(name: "Mustache", package: "swift-mustache")],
            exclude: ["Fixtures", "Golden"]
        ),
        .testTarget(name: "FlowServeTests", dependencies: ["FlowServe", "FlowSite"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE"]),
        .testTarget(
            name: "FlowCheckTests",
            // `flowspec` itself: ShardProcessTests runs shards in separate processes.
            dependencies: ["FlowCheck", "FlowMocks", "FlowModel", "JOSE", "FlowCLI", "FlowLint", "FlowSite", "TestSupport", "flowspec"],
            exclude: ["GoldenVerdicts"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "FlowMocksTests",
            dependencies: [
                "FlowMocks", "FlowModel", "FlowParser", "JOSE",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "FlowLintTests",
            // `flowspec` itself: LintCLITests and HostileProcessTests run the binary built with them.
            dependencies: ["FlowLint", "FlowParser", "FlowModel", "FlowExport", "TestSupport", "flowspec"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
