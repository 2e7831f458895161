import FlowLint
import FlowModel
import Foundation
import Testing
import TestSupport
@testable import FlowSite

/// Drives headless Chromium (Debian's `chromium`) over the built site: pages load without
/// console messages (errors, CSP violations), search finds a step, the tag filter works, and a
/// screenshot of a flow page is kept in test-artifacts/ for people to look at.
///
/// Chromium is required: the test fails, not skips, when it is missing (the CI script installs it).
@Suite("Browser", .serialized)
struct BrowserTests {
    /// The browser runner is shared with the other browser tests (TestSupport's `Chromium`).
    static func run(_ arguments: [String]) async throws -> Chromium.Run {
        do {
            let run = try await Chromium.run(arguments)
            if run.timedOut { Issue.record("chromium did not finish within 90 s: \(arguments)") }
            return run
        } catch let missing as Chromium.Missing {
            Issue.record("\(missing)")
            throw CancellationError()
        }
    }

    static func consoleLines(_ stderr: String) -> [String] { Chromium.consoleLines(stderr) }

    static func buildRepositorySite(into out: String) throws -> [Flow] {
        let report = try SiteBuilder(options: SiteBuildOptions(
            inputs: [packageRoot + "/flows"], outputDirectory: out, configPath: packageRoot + "/site/site.yml"
        )).build()
        #expect(report.succeeded, "\(DiagnosticPrinter.text(report.diagnostics, color: false))")
        return Linter().lint(paths: [packageRoot + "/flows"]).flows
    }

    @Test func pagesLoadWithoutConsoleMessagesAndSearchFindsAStep() async throws {
        let scratch = try Scratch()
        let flows = try Self.buildRepositorySite(into: scratch.out)
        let first = try #require(flows.first)
        let base = "file://" + scratch.out + "/"

        var pages = ["index.html", "search.html", "search.html?q=token"]
        pages += flows.map { "flows/\($0.id).html" }
        for page in pages {
            let run = try await Self.run(["--dump-dom", base + page])
            #expect(run.stdout.contains("</html>"), "\(page) did not load: status \(run.status)")
            #expect(Self.consoleLines(run.stderr).isEmpty, "\(page) logged: \(Self.consoleLines(run.stderr).joined(separator: "\n"))")
        }

        // Search by words of a step title: the step is among the results, rendered in the DOM.
        let step = first.steps[min(5, first.steps.count - 1)]
        let words = PlainText.of(step.title).split(separator: " ").map(String.init)
            .filter { $0.count >= 4 && $0.allSatisfy { $0.isLetter || $0.isNumber } }
            .sorted { $0.count > $1.count }.prefix(2)
        #expect(!words.isEmpty)
        let query = words.joined(separator: " ").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let search = try await Self.run(["--dump-dom", base + "search.html?q=" + query])
        #expect(search.stdout.contains("class=\"search-result\""), "no results for \(words)")
        #expect(search.stdout.contains("href=\"flows/\(first.id).html#\(step.anchor)\""), "search for \(words) did not find \(first.id) step \(step.number)")
        #expect(Self.consoleLines(search.stderr).isEmpty)

        // A query that matches nothing says so.
        let none = try await Self.run(["--dump-dom", base + "search.html?q=zzqxjv"])
        #expect(!none.stdout.contains("class=\"search-result\""))
        #expect(none.stdout.contains("id=\"search-status\"") && !none.stdout.contains("role=\"status\" data-none=\"No step or flow matches.\" data-count=\"{n} results\"></p>"))

        // The tag filter hides flows without the tag.
        let tags = Set(flows.flatMap(\.tags))
        if let tag = tags.sorted().first(where: { tag in flows.contains { !$0.tags.contains(tag) } }) {
            let filtered = try await Self.run(["--dump-dom", base + "index.html?tag=" + (tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tag)])
            let hidden = filtered.stdout.components(separatedBy: "<li class=\"flow-card\" data-tags=").count - 1
            let hiddenCards = filtered.stdout.components(separatedBy: "hidden=\"\"").count - 1
            // One card per flow with its translations (issue 13): the originals.
            let originals = flows.filter { $0.translationOf == nil }
            #expect(hidden == originals.count)
            #expect(hiddenCards == originals.filter { !$0.tags.contains(tag) }.count, "tag \(tag)")
        }
    }

    @Test func screenshotOfAFlowPage() async throws {
        let scratch = try Scratch()
        let flows = try Self.buildRepositorySite(into: scratch.out)
        let flow = try #require(flows.first { $0.id == "apple-sign-in-web" } ?? flows.first)
        let artifacts = packageRoot + "/test-artifacts"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let png = artifacts + "/flow-page.png"
        try? FileManager.default.removeItem(atPath: png)
        let run = try await Self.run(["--window-size=1280,2400", "--screenshot=" + png, "file://" + scratch.out + "/flows/\(flow.id).html"])
        let data = try #require(FileManager.default.contents(atPath: png), "no screenshot: \(run.stderr.suffix(2000))")
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(data.count > 20_000)
        let phone = artifacts + "/flow-page-phone.png"
        _ = try await Self.run(["--window-size=390,1600", "--screenshot=" + phone, "file://" + scratch.out + "/flows/\(flow.id).html"])
        #expect(FileManager.default.fileExists(atPath: phone))
    }
}
