import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
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

    /// Through the real router (FileMiddleware and the preview's middlewares): HTML pages get the
    /// reload script, other files come back byte for byte, hidden and escaping paths are refused,
    /// missing files are 404, and nothing may be cached.
    @Test func servesTheSiteAndInjectsTheReloadScriptIntoHTMLOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-serve-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let page = "<!doctype html><html><head><title>x</title></head><body>é</body></html>\n"
        let css = "body { color: red; }\n/* </head> */\n"
        let notFound = "<!doctype html><html><head></head><body>not here</body></html>\n"
        for (path, text) in ["index.html": page, "flows/a.html": page, "assets/a.css": css, ".flowspec/cache": "secret", "404.html": notFound] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let app = Application(router: SiteServer.router(root: root.path, state: ServerState(), logger: Logger(label: "test")))
        try await app.test(.router) { client in
            let tag = "<script src=\"/__flowspec/reload.js\" defer></script>\n</head>"
            for uri in ["/", "/index.html", "/flows/a.html"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    let body = String(buffer: response.body)
                    #expect(body == page.replacingOccurrences(of: "</head>", with: tag), "\(uri): \(body)")
                    #expect(response.headers[.cacheControl] == "no-store")
                    #expect(response.headers[.contentLength].map(Int.init) != Int(page.utf8.count), "the length of the file is not the length sent")
                }
            }
            try await client.execute(uri: "/assets/a.css", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == css, "not HTML: byte for byte")
                #expect(response.headers[.contentType]?.hasPrefix("text/css") == true)
                #expect(response.headers[.cacheControl] == "no-store")
            }
            for uri in ["/.flowspec/cache", "/%2e%2e/etc/passwd", "/flows/..%2f..%2fetc"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(!String(buffer: response.body).contains("secret"))
                }
            }
            try await client.execute(uri: "/flows/missing.html", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == notFound.replacingOccurrences(of: "</head>", with: "<script src=\"/__flowspec/reload.js\" defer></script>\n</head>"), "the site's 404 page, reloading too")
            }
            try await client.execute(uri: SiteServer.reloadPath, method: .get) { response in
                #expect(String(buffer: response.body) == SiteServer.reloadScript)
                #expect(!SiteServer.reloadScript.contains("http"))
            }
            try await client.execute(uri: SiteServer.versionPath, method: .get) { response in
                #expect(String(buffer: response.body) == "0")
            }
        }
    }
}

import FlowSite

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
        let before = server.watch(descriptions: [])
        #expect(before.specs.files.contains(specs.appendingPathComponent("a.md").path), "\(before.specs.files)")
        try Data("two, longer".utf8).write(to: specs.appendingPathComponent("a.md"))
        #expect(server.watch(descriptions: []) != before, "a change under the configured folder is seen")
    }

    /// An OpenAPI description a flow names is watched: editing it rebuilds the pages it feeds.
    @Test func watchesTheDescriptionsTheFlowsName() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-serve-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("flows"), withIntermediateDirectories: true)
        let description = root.appendingPathComponent("api.yaml").path
        try Data("openapi: 3.1.0\n".utf8).write(to: URL(fileURLWithPath: description))
        let server = SiteServer(options: SiteBuildOptions(inputs: [root.appendingPathComponent("flows").path], outputDirectory: root.appendingPathComponent("out").path))
        let before = server.watch(descriptions: [description])
        #expect(before.descriptions.contains(description))
        try Data("openapi: 3.1.0\ninfo: {title: changed, version: '2'}\n".utf8).write(to: URL(fileURLWithPath: description))
        #expect(server.watch(descriptions: [description]) != before, "a change to a named description is seen")
    }
}

/// The kernel's file events tell serve when to compare stamps: every input the build reads
/// raises one, the output folder raises none, and nothing is reported while nothing changes.
@Suite("Site preview server: file events")
struct FolderWatchTests {
    @Test func everyInputRaisesAnEventAndTheOutputNone() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-serve-events-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["flows/deep", "site/_build/flows", "api"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        func write(_ path: String, _ text: String = "x") throws { try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + path)) }
        try write("site/site.yml", "title: T\nflows: [\(root)/flows]\n")
        try write("flows/deep/a.md")
        try write("api/api.yaml")
        let server = SiteServer(options: SiteBuildOptions(outputDirectory: root + "/site/_build", configPath: root + "/site/site.yml"))
        let watch = try #require(FolderWatch())
        let paths = server.watchedPaths(descriptions: [root + "/api/api.yaml"])
        #expect(watch.watch(paths))
        #expect(!watch.changed(), "nothing happened yet")

        try write("site/_build/flows/a.html")
        try write("site/_build/index.html")
        #expect(!watch.changed(), "the output folder is not watched")

        try write("flows/deep/a.md", "edited")
        #expect(watch.changed(), "a spec in a subfolder")
        #expect(!watch.changed(), "the events were drained")

        try write("api/api.yaml", "openapi: 3.1.0")
        #expect(watch.changed(), "a named description")

        try write("site/site.yml", "title: U\nflows: [\(root)/flows]\n")
        #expect(watch.changed(), "the configuration")

        // A folder made after the watch: its creation is an event, and once watched, so is a
        // file inside it.
        try FileManager.default.createDirectory(atPath: root + "/flows/new", withIntermediateDirectories: true)
        #expect(watch.changed(), "a new subfolder")
        #expect(watch.watch(paths))
        try write("flows/new/b.md")
        #expect(watch.changed(), "a spec in the new subfolder")

        // The theme folder did not exist: its creation is seen through site/, then its files.
        try FileManager.default.createDirectory(atPath: root + "/site/theme/templates", withIntermediateDirectories: true)
        #expect(watch.changed(), "a theme folder made")
        #expect(watch.watch(paths))
        try write("site/theme/templates/page.mustache")
        #expect(watch.changed(), "a theme override")

        // Saved by renaming a temporary over the file, as editors do.
        try write("flows/deep/.a.md.swp")
        _ = watch.changed()
        #expect(rename(root + "/flows/deep/.a.md.swp", root + "/flows/deep/a.md") == 0)
        #expect(watch.changed(), "a rename over a spec")
    }
}
