import Testing
@testable import FlowServe

@Suite("Site preview server")
struct SiteServerTests {
    @Test func requestPathsStayInsideTheSite() {
        #expect(SiteServer.safeRelativePath("/") == "")
        #expect(SiteServer.safeRelativePath("/flows/a.html") == "flows/a.html")
        #expect(SiteServer.safeRelativePath("/../../etc/passwd") == nil)
        #expect(SiteServer.safeRelativePath("/%2e%2e/etc/passwd") == nil)
        #expect(SiteServer.safeRelativePath("/.flowspec/cache") == nil)
        #expect(SiteServer.safeRelativePath("/flows/%00x") == nil)
    }

    @Test func reloadScriptIsInjectedIntoHTMLOnly() {
        let page = Array("<html><head><title>x</title></head><body></body></html>".utf8)
        let injected = String(decoding: SiteServer.injectReload(page), as: UTF8.self)
        #expect(injected.contains("<script src=\"/__flowspec/reload.js\" defer></script>\n</head>"))
        #expect(SiteServer.injectReload(Array("body{}".utf8)) == Array("body{}".utf8))
        #expect(SiteServer.contentType("a/b.css") == "text/css; charset=utf-8")
        #expect(!SiteServer.reloadScript.contains("http"))
    }
}

import FlowSite
import Foundation

/// `serve` rebuilds when any input of the build changes, including the folders `site.yml`
/// names under `flows:`, not only flows/.
@Suite("Site preview server: what it watches")
struct SiteServerWatchTests {
    @Test func watchesTheFoldersSiteYmlNames() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-serve-watch-\(UUID().uuidString)")
        let specs = root.appendingPathComponent("specs")
        try FileManager.default.createDirectory(at: specs, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("site"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let config = root.appendingPathComponent("site/site.yml").path
        try Data("title: T\nflows: [\(specs.path)]\n".utf8).write(to: URL(fileURLWithPath: config))
        try Data("one".utf8).write(to: specs.appendingPathComponent("a.md"))
        let server = SiteServer(options: SiteBuildOptions(outputDirectory: root.appendingPathComponent("out").path, configPath: config))
        let before = server.signature()
        #expect(before.contains(specs.appendingPathComponent("a.md").path), "\(before)")
        try Data("two, longer".utf8).write(to: specs.appendingPathComponent("a.md"))
        #expect(server.signature() != before, "a change under the configured folder is seen")
    }
}
