import FlowSite
import Foundation
import Testing

/// The site for flows/ (with site/site.yml) is compared byte for byte with committed output in
/// Golden/site/, built by another process at another time: a refactoring that changes one byte
/// of a page fails here. Refresh on purpose only, after reviewing the diff:
/// `FLOWSPEC_UPDATE_GOLDEN=1 swift test --filter GoldenSiteTests` (scripts/refresh-golden.sh).
@Suite struct GoldenSiteTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/site")

    @Test func siteForTheRepositoryFlowsIsByteIdenticalToTheCommittedOne() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-golden-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        // Pages name their spec as it was given ("flows/x.md"), and search shards hash it: build
        // from the package root with relative paths, as a user does (swift test runs there).
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        try #require(here == URL(fileURLWithPath: packageRoot).standardizedFileURL.path, "run from the package root (cwd \(here))")
        let options = SiteBuildOptions(inputs: ["flows"], outputDirectory: out, configPath: "site/site.yml", incremental: false)
        let report = try SiteBuilder(options: options).build()
        #expect(report.succeeded)
        let built = try Scratch.snapshot(out).filter { !$0.key.hasPrefix(".flowspec") }
        if ProcessInfo.processInfo.environment["FLOWSPEC_UPDATE_GOLDEN"] == "1" {
            try? FileManager.default.removeItem(at: Self.golden)
            for (path, data) in built {
                let file = Self.golden.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file)
            }
            return
        }
        let expected = try Scratch.snapshot(Self.golden.path)
        #expect(!expected.isEmpty, "Golden/site is missing: refresh it on purpose (see above)")
        #expect(Set(built.keys) == Set(expected.keys), "files: missing \(Set(expected.keys).subtracting(built.keys).sorted()), new \(Set(built.keys).subtracting(expected.keys).sorted())")
        for (path, data) in built.sorted(by: { $0.key < $1.key }) where expected[path] != nil {
            #expect(data == expected[path], "\(path) differs from Golden/site/\(path)")
        }
    }
}
