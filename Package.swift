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
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // OpenAPI 3.0/3.1 documents for `openapi:` in the front matter (FlowOpenAPI).
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
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
        // mimalloc replaces glibc's malloc for the whole process once linked (FlowCLI imports it):
        // a full build does 7 % fewer instructions and 10 % less CPU (docs/architecture.md).
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        // Core: no NIO anywhere below this line, so these build and test in seconds.
        .target(name: "FlowModel"),
        // Keeps cmark-gfm's special inline characters marked for good, so inlines are parsed on
        // every core at once (Sources/FlowParser/Cmark.swift says why).
        .target(name: "CCmarkInlines", dependencies: ["CCmarkGFM"]),
        .target(name: "FlowParser", dependencies: ["FlowModel", "CCmarkGFM", "CCmarkInlines", "Yams"]),
        // A flow's `openapi:` description, read with OpenAPIKit (3.0 documents converted to 3.1),
        // and the questions lint asks of it (operation for a request, body schema, statuses).
        .target(
            name: "FlowOpenAPI",
            dependencies: [
                "FlowModel", "FlowParser",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(name: "FlowLint", dependencies: ["FlowModel", "FlowParser", "FlowOpenAPI"]),
        // Mermaid, Graphviz, JSON and Arazzo 1.0 (+ OpenAPI) views of the model; Yams writes the YAML.
        .target(name: "FlowExport", dependencies: ["FlowModel", .product(name: "Yams", package: "Yams")]),
        // One home for `import`: legacy documents and Arazzo documents in, specs out (SpecWriter).
        // Reads Arazzo with the same document types FlowExport writes, so the two cannot drift.
        .target(
            name: "FlowImport",
            dependencies: ["FlowModel", "FlowParser", "FlowExport", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "FlowSite",
            dependencies: [
                "FlowModel", "FlowParser", "FlowLint", "FlowOpenAPI", "JOSE",
                .product(name: "Yams", package: "Yams"),
            ],
            // The default theme is embedded in the binary by EmbedThemePlugin (no resource bundle
            // to ship beside the executable on Linux).
            exclude: ["Theme"],
            plugins: ["EmbedThemePlugin"]
        ),
        .executableTarget(
            name: "FlowSiteEmbedTheme", dependencies: [.product(name: "Yams", package: "Yams")], path: "Plugins/FlowSiteEmbedTheme"
        ),
        .plugin(name: "EmbedThemePlugin", capability: .buildTool(), dependencies: ["FlowSiteEmbedTheme"]),
        // JOSE by hand on OpenSSL's EVP API: the checker must emit byte-exact malformed tokens.
        .target(name: "JOSE", dependencies: ["FlowModel", "COpenSSL"]),

        // Servers from here on: the mock identity provider (flowspec plays Apple) and the
        // spec-driven mock backend.
        .target(
            name: "FlowMocks",
            dependencies: [
                "FlowModel", "FlowParser", "JOSE",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
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
                "FlowModel", "FlowParser", "FlowSite", "FlowLint",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FlowCLI",
            dependencies: [
                "FlowModel", "FlowParser", "FlowLint", "FlowExport", "FlowImport", "FlowSite", "FlowServe", "FlowMocks", "FlowCheck", "CMimalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The static release binary exports none of its symbols: the Swift toolchain's
        // static-stdlib-args.lnk links with `-export-dynamic`, which put 47 000 of flowspec's and
        // its dependencies' symbols in the dynamic symbol table, for the loader to hash and
        // `dladdr` to walk at start-up. Nothing looks them up by name (the runtime finds types and
        // conformances through its sections). `flowspec --version`: 24.8 -> 23.2 M instructions.
        .executableTarget(
            name: "flowspec", dependencies: ["FlowCLI"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(configuration: .release))]
        ),

        // What several test targets share (running processes, the built binary, the package root).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "FlowModelTests", dependencies: ["FlowModel", "TestSupport"]),
        .testTarget(name: "FlowParserTests", dependencies: ["FlowParser", "FlowModel", "TestSupport", "CCmarkGFM", .product(name: "Yams", package: "Yams")]),
        // `flowspec` itself: the Arazzo tests run export, import and the mock backend as processes.
        .testTarget(
            name: "FlowExportTests",
            dependencies: ["FlowExport", "FlowImport", "FlowParser", "FlowLint", "FlowModel", "TestSupport", "flowspec"],
            exclude: ["Fixtures"]
        ),
        // swift-mustache is the reference the theme renderer's output is compared with, byte for byte.
        .testTarget(
            name: "FlowSiteTests",
            dependencies: ["FlowSite", "FlowParser", "FlowModel", "FlowLint", "FlowOpenAPI", "FlowMocks", "TestSupport", .product(name: "Yams", package: "Yams"), .product(name: "Mustache", package: "swift-mustache")],
            exclude: ["Fixtures", "Golden"]
        ),
        .testTarget(
            name: "FlowServeTests",
            dependencies: [
                "FlowServe", "FlowSite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "FlowModel"]),
        .testTarget(
            name: "FlowCheckTests",
            // `flowspec` itself: ShardProcessTests runs shards in separate processes.
            dependencies: ["FlowCheck", "FlowMocks", "FlowModel", "JOSE", "FlowCLI", "FlowLint", "FlowParser", "FlowSite", "TestSupport", "flowspec"],
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
            dependencies: [
                "FlowLint", "FlowOpenAPI", "FlowParser", "FlowModel", "FlowExport", "FlowImport", "TestSupport", "flowspec",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"), .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds reach concrete type metadata through accessor functions instead of mangled
// names: a mangled name's generic requirements (`Key: Hashable` of a dictionary…) are checked by
// the runtime, and each first check scans every protocol conformance record of the binary
// (~12 000 in the static build). A one-flow rebuild among 2 000 did 7 M instructions less (3 %);
// docs/benchmarks.md has the figures, and those of the dependencies built the same way.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release)),
    ]
}
