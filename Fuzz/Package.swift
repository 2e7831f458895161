// swift-tools-version:6.0
// libFuzzer targets for flowspec's parsers (issue 10). Built by scripts/fuzz.sh with
// `-sanitize=fuzzer,address` into a scratch path under /tmp, never into the root .build.
//
// The root package exports only the `flowspec` executable, so a path dependency on it could
// not name its library targets. Instead Core/ holds symlinks to the root's Sources/<Target>
// directories and this manifest declares the same targets again — only the NIO-free core the
// fuzzers need (FlowModel, FlowParser, FlowOpenAPI, FlowLint, FlowExport, FlowImport, JOSE and the two system
// libraries, and CCmarkInlines). Keep the dependencies below in step with the root Package.swift.
import PackageDescription

let package = Package(
    name: "flowspec-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
    ],
    targets: [
        .systemLibrary(name: "CCmarkGFM", path: "Core/CCmarkGFM", pkgConfig: "libcmark-gfm"),
        .systemLibrary(name: "COpenSSL", path: "Core/COpenSSL", pkgConfig: "openssl"),
        .target(name: "FlowModel", path: "Core/FlowModel"),
        .target(name: "CCmarkInlines", dependencies: ["CCmarkGFM"], path: "Core/CCmarkInlines"),
        .target(name: "FlowParser", dependencies: ["FlowModel", "CCmarkGFM", "CCmarkInlines", "Yams"], path: "Core/FlowParser"),
        .target(
            name: "FlowOpenAPI",
            dependencies: [
                "FlowModel", "FlowParser", "Yams",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
            ],
            path: "Core/FlowOpenAPI"
        ),
        .target(name: "FlowLint", dependencies: ["FlowModel", "FlowParser", "FlowOpenAPI"], path: "Core/FlowLint"),
        .target(name: "FlowExport", dependencies: ["FlowModel", "Yams"], path: "Core/FlowExport"),
        .target(name: "FlowImport", dependencies: ["FlowModel", "FlowParser", "FlowExport", "Yams"], path: "Core/FlowImport"),
        .target(name: "JOSE", dependencies: ["FlowModel", "COpenSSL"], path: "Core/JOSE"),

        // libFuzzer's LLVMFuzzerRunDriver, declared for Swift.
        .target(name: "CFuzzer", path: "Support/CFuzzer"),
        // The entry point and driver call every target shares (`runFuzzer`).
        .target(name: "FuzzDriver", dependencies: ["CFuzzer"], path: "Support/FuzzDriver"),
        // One executable per fuzz target: a function over the input's bytes, run by FuzzDriver.
        .executableTarget(name: "fuzz-spec", dependencies: ["FlowParser", "FlowLint", "FlowModel", "FuzzDriver"],
                          path: "Targets/spec"),
        .executableTarget(name: "fuzz-legacy", dependencies: ["FlowImport", "FlowLint", "FlowModel", "FuzzDriver"],
                          path: "Targets/legacy"),
        .executableTarget(name: "fuzz-arazzo", dependencies: ["FlowImport", "FlowLint", "FlowModel", "FuzzDriver"],
                          path: "Targets/arazzo"),
        .executableTarget(name: "fuzz-jws", dependencies: ["JOSE", "FlowModel", "FuzzDriver"], path: "Targets/jws"),
        .executableTarget(name: "fuzz-jwks", dependencies: ["JOSE", "FlowModel", "FuzzDriver"], path: "Targets/jwks"),
        .executableTarget(name: "fuzz-json", dependencies: ["JOSE", "FlowModel", "FuzzDriver"], path: "Targets/json"),
    ],
    swiftLanguageModes: [.v6]
)
