import FlowCheck
import FlowModel
import FlowParser
import Foundation
import Testing

/// `check --report markdown:FILE`: a job summary read through cmark-gfm (GitHub's Markdown
/// dialect), so what is asserted is what a job page shows, not the Markdown text.
@Suite struct MarkdownReportTests {
    static let site = "https://example.github.io/flows/"

    static func html(_ report: CheckReport) -> String {
        // Raw HTML allowed: an unescaped `<tag>` from a backend would come through as a tag.
        MarkdownRenderer.html(source: MarkdownReport.render(report, siteURL: site), allowRawHTML: true)
    }

    @Test func countsFlowsFailuresEvidenceAndStepLinks() throws {
        let report = ReportTests.report(ReportTests.sampleResults())
        let page = Self.html(report)
        // Counts from the sample: 3 pass, 1 fail, 1 error, 1 not executable, 1 informational.
        #expect(page.contains("3 passed, 1 failed, 1 errors, 0 inconclusive, 1 not executable, 1 informational (7 items"), "\(page.prefix(600))")
        // One table row per flow, each linking to its page; A before B.
        let rows = page.components(separatedBy: "<tr>").dropFirst(2).map { $0 }
        #expect(rows.count == 2)
        #expect(rows[0].contains("<a href=\"\(Self.site)flows/a-flow.html\">A</a>"))
        #expect(rows[0].contains("<td align=\"right\">4</td>"))
        #expect(rows[1].contains("<a href=\"\(Self.site)flows/b-flow.html\">B</a>"))
        // The two failing items, each under its own heading; the failing step links to the site.
        #expect(page.components(separatedBy: "<h3>").count - 1 == 2)
        #expect(page.contains("<a href=\"\(Self.site)flows/a-flow.html#step-2\">2. Posts</a>"))
        // Evidence in a code block, its HTML escaped by cmark, the control character visible.
        #expect(page.contains("<pre><code class=\"language-text\">request:  POST http://127.0.0.1:1/login"))
        #expect(page.contains("&lt;html&gt; &amp; &quot;quotes&quot; \\u{1}"))
        // The backend's "why <it> failed" is text, not a tag.
        #expect(page.contains("why &lt;it&gt; failed"))
        #expect(!page.contains("<it>"))
    }

    @Test func passingRunHasNoFailuresSection() {
        let passing = ReportTests.sampleResults().filter { !$0.verdict.failsRun }
        let page = Self.html(ReportTests.report(passing))
        #expect(page.contains("✅ passed"))
        #expect(!page.contains("<h2>Failures</h2>"))
    }

    /// A title or message cannot add a link, an image, formatting or a fence break.
    @Test func hostileTextStaysText() {
        var results = ReportTests.sampleResults()
        results[2].message = "[click](https://evil.example) ![x](https://evil.example/x.png) **bold** <script>alert(1)</script> | cell"
        results[3].evidence?.notes = ["```\n# heading after a fence"]
        let page = Self.html(ReportTests.report(results))
        // No link with disguised text (a bare URL may be autolinked, as GitHub does anyway).
        #expect(!page.contains(">click</a>"))
        #expect(!page.contains("<img"))
        #expect(!page.contains("<strong>bold"))
        #expect(!page.contains("<script>"))
        #expect(!page.contains("<h1>heading after a fence"))
        #expect(page.contains("[click]("))
    }

    /// Written like the other reports: atomically, to the path given.
    @Test func writtenAtomicallyThroughReportTarget() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-md-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("summary.md").path
        let target = try #require(ReportTarget(parsing: "markdown:\(path)"))
        #expect(target.format == .markdown)
        let report = ReportTests.report(ReportTests.sampleResults())
        try report.write(to: [target])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == MarkdownReport.render(report))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["summary.md"])
    }
}
