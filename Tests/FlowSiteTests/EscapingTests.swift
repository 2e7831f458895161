import Foundation
import Testing
@testable import FlowSite

/// Everything from a spec is escaped; `javascript:` links are dropped; raw HTML is off unless
/// site.yml turns it on.
@Suite("Escaping hostile specs")
struct EscapingTests {
    static let hostile = """
    ---
    id: hostile
    title: "<script>alert('title')</script> Login"
    summary: "\\"><img src=x onerror=alert(1)> summary"
    lang: en
    provider: apple
    tags: ["<b>tag</b>", "\\"><svg onload=alert(2)>"]
    actors:
      user: { name: "<script>alert('actor')</script>", role: person }
      app: { name: "\\"><img src=x onerror=alert(3)>", role: client }
      backend: { name: Backend, role: backend }
    variables:
      evil: "\\"><script>alert(4)</script>"
    ---

    # Hostile

    Click [here](javascript:alert(5)) or [there](JaVaScRiPt:alert(6)) or <a href="javascript:alert(7)">raw</a>.

    <script>alert(8)</script>

    <img src=x onerror=alert(9)>

    ## Steps

    ### 1. <script>alert('step')</script> taps
    user → app

    Prose with <iframe src="https://evil.example"></iframe> and a [link](javascript:alert(10)).

    ### 2. App posts "><img src=x onerror=alert(11)>
    app → backend

    ```http
    POST /api/login?next=<script>alert(12)</script>
    X-Evil: "><img src=x onerror=alert(13)>

    {"a": "</code></pre><script>alert(14)</script>", "v": "{{evil}}"}
    ```

    ```expect
    status: 200
    headers:
      X-Evil: { matches: "<script>alert(18)</script>" }
    ```

    - Accepted <script>alert('branch')</script> → end: success
    - Rejected "><img src=x onerror=alert(15)> → end: failure

    ## Token rules

    | Rule | Token | Requirement |
    |------|-------|-------------|
    | audience | id_token @ 2 | <script>alert(16)</script> [x](javascript:alert(17)) |
    """

    func build(allowRawHTML: Bool = false) throws -> (Scratch, SiteBuildReport) {
        let scratch = try Scratch()
        try scratch.write("flows/hostile.md", Self.hostile)
        if allowRawHTML { try scratch.write("site/site.yml", "title: T\nallow-raw-html: true\n") }
        let report = try scratch.build()
        return (scratch, report)
    }

    @Test func hostileStringsAreEscapedEverywhere() throws {
        let (scratch, report) = try build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let files = try Scratch.snapshot(scratch.out)
        for (name, data) in files where name.hasSuffix(".html") || name.hasSuffix(".js") {
            let text = String(decoding: data, as: UTF8.self)
            let lowered = text.lowercased()
            #expect(!lowered.contains("<script>alert"), "\(name): unescaped <script>")
            #expect(!lowered.contains("<img src=x"), "\(name): unescaped <img>")
            #expect(!lowered.contains("<svg onload"), "\(name): unescaped <svg onload>")
            #expect(!lowered.contains("<iframe"), "\(name): raw <iframe>")
            #expect(!lowered.contains("onerror=alert") || !lowered.contains("<img"), "\(name)")
            #expect(!lowered.contains("href=\"javascript:"), "\(name): javascript: link")
            #expect(!lowered.contains("alert(5)") && !lowered.contains("alert(6)") && !lowered.contains("alert(10)") && !lowered.contains("alert(17)"),
                    "\(name): javascript: link target kept")
        }
        let page = try scratch.read("flows/hostile.html")
        #expect(page.contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt; Login"))
        #expect(page.contains("&lt;script&gt;alert(&#39;actor&#39;)&lt;/script&gt;"))
        #expect(page.contains("&quot;&gt;&lt;img src=x onerror=alert(3)&gt;"))
        #expect(page.contains("/api/login?next=&lt;script&gt;alert(12)&lt;/script&gt;"))
        #expect(page.contains("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(14)&lt;/script&gt;"))
        // The placeholder's tooltip (the variable's value) is an attribute: escaped too.
        #expect(page.contains("title=\"= &quot;&gt;&lt;script&gt;alert(4)&lt;/script&gt;\""))
        let index = try scratch.read("index.html")
        #expect(index.contains("&lt;b&gt;tag&lt;/b&gt;"))
        // The tag's filter link carries it percent-encoded (RFC 3986: only unreserved ASCII
        // stays), worked out by hand: < %3C, > %3E, " %22, space %20, = %3D, ( %28, ) %29.
        #expect(index.contains("index.html?tag=%3Cb%3Etag%3C/b%3E\""))
        #expect(index.contains("index.html?tag=%22%3E%3Csvg%20onload%3Dalert%282%29%3E\""))
    }

    @Test func rawHTMLOnlyWhenSiteYmlAllowsIt() throws {
        let marker = "<mark class=\"raw-ok\">raw</mark>"
        let spec = sampleSpec(extraProse: marker)
        let off = try Scratch()
        try off.write("flows/sample.md", spec)
        #expect(try off.build().succeeded)
        #expect(!(try off.read("flows/sample.html")).contains(marker))

        let on = try Scratch()
        try on.write("flows/sample.md", spec)
        try on.write("site/site.yml", "title: T\nallow-raw-html: true\n")
        #expect(try on.build().succeeded)
        let page = try on.read("flows/sample.html")
        #expect(page.contains(marker))
    }

    /// With `allow-raw-html: true`, titles, summaries, step titles, branch labels and targets
    /// stay text: the page, parsed by Python's html.parser, creates no element inside them but
    /// the site's own markup, and their text shows the payloads literally.
    @Test func chromeIsTextEvenWithRawHTML() throws {
        let (scratch, report) = try build(allowRawHTML: true)
        #expect(report.succeeded, "\(report.diagnostics)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/dom_chrome.py").path
        for page in ["flows/hostile.html", "index.html"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, scratch.out + "/" + page]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let dom = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(page): \(String(decoding: data, as: UTF8.self))")
            let elements = try #require(dom["elements"] as? [[String: Any]])
            // Inside chrome only the site's own inline markup: step numbers, links to steps, code.
            let allowed: Set<String> = ["span", "a", "code", "em", "strong"]
            for element in elements {
                let tag = element["tag"] as? String ?? "?"
                #expect(allowed.contains(tag), "\(page): a <\(tag)> was created inside a title or label")
                let attributes = element["attributes"] as? [String] ?? []
                #expect(!attributes.contains { $0.lowercased().hasPrefix("on") || $0.lowercased() == "src" }, "\(page): \(element)")
            }
            let texts = (dom["texts"] as? [String] ?? []).joined(separator: "\n")
            if page.hasPrefix("flows/") {
                #expect(texts.contains("<script>alert('title')</script> Login"), "the title's payload shows as text")
                #expect(texts.contains("<script>alert('step')</script> taps"))
                #expect(texts.contains("Rejected \"><img src=x onerror=alert(15)>"))
            }
            // (Prose bodies are raw HTML here by the site's choice; its CSP still blocks inline
            // handlers. Titles and labels are not prose: checked above.)
        }
    }

    /// A bidi override in a title, a tag or a branch label shows on the page as a mark, instead
    /// of silently reordering what a reviewer reads.
    @Test func invisibleCharactersAreMadeVisible() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec(title: "Demo \u{2066}x")
            .replacingOccurrences(of: "tags: [auth, sample]", with: "tags: [auth, \"\u{202E}evil\"]"))
        let report = try scratch.build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let page = try scratch.read("flows/sample.html")
        #expect(page.contains("⟦U+202E⟧evil"), "the tag's override is visible")
        #expect(page.contains("⟦U+2066⟧"), "the title's isolate is visible")
        #expect(!page.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{2066}" })
    }

    @Test func javascriptLinksAreDroppedEvenWithRawHTML() throws {
        let (scratch, report) = try build(allowRawHTML: true)
        #expect(report.succeeded)
        let page = try scratch.read("flows/hostile.html").lowercased()
        #expect(!page.contains("alert(5)"))
        #expect(!page.contains("alert(6)"))
        #expect(!page.contains("alert(10)"))
        // Chrome stays escaped: raw HTML applies to Markdown prose only.
        #expect(page.contains("&lt;script&gt;alert(&#39;title&#39;)"))
    }
}
