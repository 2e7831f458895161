import FlowLint
import FlowModel
import Foundation
import Testing
@testable import FlowSite

/// Structure of the built pages: anchors, links, diagrams, CSP, no external URLs in the chrome.
@Suite("Page structure")
struct PageStructureTests {
    /// Values of `attribute="…"` in markup.
    static func attributeValues(_ attribute: String, in html: String) -> [String] {
        var values: [String] = []
        var rest = Substring(html)
        let marker = " " + attribute + "=\""
        while let range = rest.range(of: marker) {
            let after = rest[range.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            values.append(String(after[..<end]))
            rest = after[end...]
        }
        return values
    }

    static func unescape(_ value: String) -> String {
        value.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
    }

    /// Markup with rendered spec prose removed: what is left is the chrome flowspec generates.
    static func chrome(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let start = rest.range(of: "<div class=\"prose") {
            out += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].range(of: "</div>") else { return out }
            rest = rest[end.upperBound...]
        }
        return out + rest
    }

    static func isExternal(_ url: String) -> Bool {
        // Foundation's URL parser (RFC 3986), not the site's own scheme check under test.
        url.hasPrefix("//") || URL(string: url)?.scheme != nil
    }

    /// Every internal link of every page resolves to a file, and its fragment to an id there.
    static func assertLinksResolve(in out: String) throws {
        let files = try Scratch.snapshot(out)
        let pages = files.keys.filter { $0.hasSuffix(".html") }
        #expect(!pages.isEmpty)
        var checked = 0
        for page in pages {
            let html = String(decoding: files[page]!, as: UTF8.self)
            for raw in attributeValues("href", in: html) + attributeValues("src", in: html) {
                let url = unescape(raw)
                if isExternal(url) { continue }
                var path = url
                var fragment = ""
                if let hash = path.firstIndex(of: "#") {
                    fragment = String(path[path.index(after: hash)...])
                    path = String(path[..<hash])
                }
                if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
                // Resolved by Foundation (RFC 3986 §5.2), not by the site's own normaliser.
                var target = page
                if !path.isEmpty {
                    let base = try #require(URL(string: "file:///" + page))
                    let resolved = try #require(URL(string: path, relativeTo: base)?.absoluteURL.standardized.path, "\(page): \(url)")
                    target = String(resolved.dropFirst())
                }
                let targetData = try #require(files[target], "\(page): link \(url) → missing \(target)")
                if !fragment.isEmpty {
                    let targetHTML = String(decoding: targetData, as: UTF8.self)
                    #expect(targetHTML.contains(" id=\"\(fragment)\""), "\(page): link \(url) → no id \(fragment) in \(target)")
                }
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    static func assertChromeIsSelfContained(in out: String) throws {
        let files = try Scratch.snapshot(out)
        for (name, data) in files where name.hasSuffix(".html") {
            let html = String(decoding: data, as: UTF8.self)
            #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;none&#39;; script-src &#39;self&#39;"), "\(name): CSP")
            for url in attributeValues("src", in: html) {
                #expect(!isExternal(url), "\(name): external src \(url)")
            }
            for url in attributeValues("href", in: chrome(html)) {
                #expect(!isExternal(url), "\(name): external href in the chrome: \(url)")
            }
            #expect(!html.contains("style=\""), "\(name): inline style (blocked by the CSP)")
            #expect(!html.contains("<script>"), "\(name): inline script (blocked by the CSP)")
        }
        for (name, data) in files where (name.hasSuffix(".css") || name.hasSuffix(".js")) && !name.hasPrefix("assets/search/") {
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("@import"), "\(name) refers to another host")
        }
    }

    @Test func sampleFlowPageHasAnchorsDiagramsAndResolvingLinks() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        let report = try scratch.build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let page = try scratch.read("flows/sample.html")
        for number in 1...6 {
            #expect(page.contains("<section class=\"step kind-") && page.contains("id=\"step-\(number)\""))
            #expect(page.contains("<h3 id=\"step-\(number)-h\">"))
        }
        #expect(page.contains("<svg class=\"diagram seq\""))
        #expect(page.contains("<svg class=\"diagram states\""))
        // Alternates as links to their targets, ends as outcomes.
        #expect(page.contains("<a class=\"branch-target\" href=\"#step-4\">"))
        #expect(page.contains("outcome-pill outcome-cancelled"))
        // Exchange and expectations as readable code.
        #expect(page.contains("<span class=\"http-method\">POST</span> <span class=\"http-target\">/api/login</span>"))
        #expect(page.contains("<code>$.session</code>"))
        // Token rules with their checker cases from the catalogue.
        for tokenCase in TokenCase.catalogue where tokenCase.families.contains(.signature) {
            #expect(page.contains(">\(tokenCase.id)</span>"))
        }
        #expect(page.contains("<tr id=\"rule-audience\">"))
        // Prose sections in document order around the steps.
        let purpose = try #require(page.range(of: "id=\"s-purpose\""))
        let steps = try #require(page.range(of: "id=\"steps\""))
        let notes = try #require(page.range(of: "id=\"s-notes\""))
        #expect(purpose.lowerBound < steps.lowerBound && steps.lowerBound < notes.lowerBound)
        // Landmarks and skip link.
        #expect(page.contains("<main id=\"main\""))
        #expect(page.contains("<nav class=\"toc\" aria-label="))
        #expect(page.contains("<a class=\"skip-link\" href=\"#main\">"))
        try Self.assertLinksResolve(in: scratch.out)
        try Self.assertChromeIsSelfContained(in: scratch.out)
    }

    /// A rule lists the cases its flow's provider runs: Google's second issuer (P9) and azp
    /// (C18) on the Google page, neither on Apple's; Apple's notification case C17 only there.
    @Test func tokenCasesFollowTheFlowsProvider() throws {
        let scratch = try Scratch()
        let flows = packageRoot + "/flows"
        let report = try SiteBuilder(options: SiteBuildOptions(
            inputs: [flows], outputDirectory: scratch.out, configPath: packageRoot + "/site/site.yml"
        )).build()
        #expect(report.succeeded)
        func chips(_ id: String) throws -> Set<String> {
            let page = try scratch.read("flows/\(id).html")
            // A chip is `<span class="case-chip …" title="…"><span class="chip-icon">✓</span>ID</span>`.
            return Set(page.components(separatedBy: "class=\"case-chip ").dropFirst().compactMap { part in
                part.components(separatedBy: "</span>").dropFirst().first?.split(separator: "<").first.map(String.init)
            })
        }
        let google = try chips("google-sign-in-web")
        let apple = try chips("apple-sign-in-web-en")
        #expect(google.isSuperset(of: ["P9", "C18", "C1", "S3"]) && google.isDisjoint(with: ["C17", "C14", "P2", "P7"]), "\(google.sorted())")
        #expect(apple.isSuperset(of: ["C17", "P2", "P7", "C1"]) && apple.isDisjoint(with: ["P9", "C18", "C14"]), "\(apple.sorted())")
    }

    @Test func everyFlowInTheRepositoryIsRendered() throws {
        let scratch = try Scratch()
        let flows = packageRoot + "/flows"
        let report = try SiteBuilder(options: SiteBuildOptions(
            inputs: [flows], outputDirectory: scratch.out, configPath: packageRoot + "/site/site.yml"
        )).build()
        #expect(report.succeeded, "\(DiagnosticPrinter.text(report.diagnostics, color: false))")
        let lint = Linter().lint(paths: [flows])
        #expect(!lint.flows.isEmpty)
        for flow in lint.flows {
            let page = try scratch.read("flows/\(flow.id).html")
            let svgStart = try #require(page.range(of: "<svg class=\"diagram seq\""))
            let svgEnd = try #require(page[svgStart.upperBound...].range(of: "</svg>"))
            let svg = String(page[svgStart.lowerBound..<svgEnd.upperBound])
            for step in flow.steps {
                #expect(page.contains("id=\"step-\(step.number)\""), "\(flow.id): anchor of step \(step.number)")
                #expect(svg.components(separatedBy: "<a href=\"#step-\(step.number)\" class=\"msg ").count == 2, "\(flow.id): one message for step \(step.number)")
            }
            let branches = flow.steps.flatMap(\.alternates).count
            #expect(svg.components(separatedBy: "class=\"alt-branch").count - 1 == branches, "\(flow.id): alternates drawn")
        }
        let index = try scratch.read("index.html")
        for flow in lint.flows { #expect(index.contains("href=\"flows/\(flow.id).html\"")) }
        let search = try (0..<SiteBuilder.searchShards).map { try scratch.read(SiteBuilder.searchShardPath($0)) }.joined()
        for flow in lint.flows {
            for step in flow.steps { #expect(search.contains("\"flows/\(flow.id).html#\(step.anchor)\""), "\(flow.id) step \(step.number) in the search index") }
        }
        let searchPage = try scratch.read("search.html")
        // Exactly the shards that hold an entry are loaded (an empty shard is a wasted request).
        for shard in 0..<SiteBuilder.searchShards {
            let holdsEntries = try scratch.read(SiteBuilder.searchShardPath(shard)).contains("\"flows/")
            #expect(searchPage.contains("<script src=\"\(SiteBuilder.searchShardPath(shard))\" defer>") == holdsEntries, "shard \(shard)")
        }
        try Self.assertLinksResolve(in: scratch.out)
        try Self.assertChromeIsSelfContained(in: scratch.out)
    }

    @Test func translationsAreLinkedAndLabelsLocalised() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        try scratch.write("flows/sample-vi.md", sampleSpec(id: "sample-vi", title: "Đăng nhập mẫu", lang: "vi", translationOf: "sample"))
        try scratch.write("flows/sample-tr.md", sampleSpec(id: "sample-tr", title: "Örnek giriş", lang: "tr", translationOf: "sample"))
        let report = try scratch.build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let english = try scratch.read("flows/sample.html")
        let vietnamese = try scratch.read("flows/sample-vi.html")
        let turkish = try scratch.read("flows/sample-tr.html")
        #expect(english.contains("<a href=\"sample-vi.html\" hreflang=\"vi\" lang=\"vi\""))
        #expect(english.contains("<a href=\"sample-tr.html\" hreflang=\"tr\" lang=\"tr\""))
        #expect(english.contains("<span class=\"current\" aria-current=\"page\" lang=\"en\">English</span>"))
        #expect(vietnamese.contains("<a href=\"sample.html\" hreflang=\"en\""))
        #expect(vietnamese.contains("<html lang=\"vi\">"))
        #expect(vietnamese.contains(">Các bước</h2>"))
        #expect(turkish.contains(">Adımlar</h2>"))
        #expect(english.contains(">Steps</h2>"))
        // The signature rule's case list: each title in the page's language (S2 as an example).
        #expect(english.contains("genuine kid, signed by another RSA key"))
        #expect(vietnamese.contains("kid thật, ký bằng một khoá RSA khác"))
        #expect(turkish.contains("gerçek kid, başka bir RSA anahtarıyla imzalı"))
        #expect(!vietnamese.contains("genuine kid, signed by another RSA key"))
        try Self.assertLinksResolve(in: scratch.out)
    }

    @Test func resultsAreShownBesideStepsAndCases() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        let results = SiteResults(label: "staging", flows: [
            .init(flow: "sample", steps: [
                .init(step: 4, verdict: .init(status: .fail, evidence: "expected 200, got 500")),
                .init(step: 1, verdict: .init(status: .notExecutable)),
            ], cases: [
                .init(rule: "signature", caseID: "S1", verdict: .init(status: .pass, evidence: "401 <rejected>")),
            ]),
        ])
        let report = try scratch.build(results: results)
        #expect(report.succeeded)
        let page = try scratch.read("flows/sample.html")
        #expect(page.contains("has-verdict step-verdict-fail\" id=\"step-4\""))
        #expect(page.contains("expected 200, got 500"))
        #expect(page.contains("has-verdict step-verdict-not-executable\" id=\"step-1\""))
        // The chip shows the verdict (fill and icon); the expectation is a separate label.
        #expect(page.contains("<span class=\"case-chip chip-pass\" title=\"S1: passed · must reject\"><span class=\"chip-icon\" aria-hidden=\"true\">✓</span>S1</span>"))
        #expect(page.contains("<span class=\"case-expect expect-reject\">must reject</span>"))
        // A case without a verdict in a run is not shown as passed.
        #expect(page.contains("<span class=\"case-chip chip-none\" title=\"S2: no result · must reject\">"))
        #expect(page.contains("401 &lt;rejected&gt;"))
        #expect(page.contains("(staging)"))
        // Verdict colours are scoped to badges and chips: no bare rule colours a step's prose.
        let css = try scratch.read("assets/flowspec.css")
        for status in ["pass", "fail", "not-executable", "info"] {
            #expect(!css.contains("\n.verdict-\(status) {"), "a bare .verdict-\(status) rule would colour the step section")
        }
    }

    /// The integration-doc basics, read from the built HTML: headings in order, permalinks on
    /// headings and rule rows, previous/next step, "copy as curl" with the request (quoted for a
    /// POSIX shell: the oracle is sh itself), a favicon, a 404 page, outcome names in the page's
    /// language.
    @Test func pagesHaveTheIntegrationDocBasics() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        try scratch.write("flows/sample-tr.md", sampleSpec(id: "sample-tr", title: "Örnek giriş", lang: "tr", translationOf: "sample"))
        #expect(try scratch.build().succeeded)
        let page = try scratch.read("flows/sample.html")
        let h1 = try #require(page.range(of: "<h1>"))
        let onThisPage = try #require(page.range(of: "class=\"toc-title\""))
        #expect(h1.lowerBound < onThisPage.lowerBound, "the h1 comes before the \"On this page\" h2")
        #expect(page.contains("<h2 id=\"s-purpose-h\">Purpose <a class=\"anchor-link\" href=\"#s-purpose\""))
        #expect(page.contains("<code>signature</code> <a class=\"anchor-link\" href=\"#rule-signature\""))
        #expect(page.contains("<a class=\"step-next\" href=\"#step-2\" rel=\"next\">"))
        #expect(page.contains("<a class=\"step-prev\" href=\"#step-3\" rel=\"prev\">"))
        #expect(page.contains("<link rel=\"icon\" href=\"../assets/favicon.svg\""))
        #expect(FileManager.default.fileExists(atPath: scratch.out + "/assets/favicon.svg"))
        let notFound = try scratch.read("404.html")
        #expect(notFound.contains("<h1>Page not found</h1>") && notFound.contains("href=\"/index.html\""))
        // One index card for the flow and its translation, linking the translation's language.
        let index = try scratch.read("index.html")
        #expect(index.components(separatedBy: "<li class=\"flow-card\"").count - 1 == 1)
        #expect(index.contains("<a href=\"flows/sample-tr.html\" hreflang=\"tr\" lang=\"tr\" title=\"Örnek giriş\">Türkçe</a>"))
        #expect(try scratch.read("flows/sample-tr.html").contains("başarılı"), "outcome names in the page's language")

        // The curl command, unescaped from its attribute, run by sh with curl replaced by printf:
        // the arguments curl would get are the request's method, URL, header and body.
        let attribute = try #require(page.components(separatedBy: "data-curl=\"").dropFirst().first?.components(separatedBy: "\"").first)
        let command = attribute.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        let script = "curl() { printf '[%s]\\n' \"$@\"; }\nBACKEND=http://backend.test\n" + command + "\n"
        let run = try runShell(script)
        #expect(run == "[-X]\n[POST]\n[http://backend.test/api/login]\n[-H]\n[Content-Type: application/json]\n[--data-raw]\n[{\"code\": \"{{provider.code}}\", \"id_token\": \"{{provider.id_token}}\"}]\n", "\(run)")
    }

    private func runShell(_ script: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func themeOverridesReplaceEmbeddedFiles() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        try scratch.write("site/theme/assets/flowspec.css", "body { color: rebeccapurple; }\n")
        try scratch.write("site/site.yml", "title: Custom\nlabels:\n  en:\n    steps: The steps\n")
        let report = try scratch.build()
        #expect(report.succeeded)
        #expect(try scratch.read("assets/flowspec.css") == "body { color: rebeccapurple; }\n")
        #expect(try scratch.read("flows/sample.html").contains(">The steps</h2>"))
        #expect(try scratch.read("index.html").contains("<h1>Custom</h1>"))
    }

    /// The built-in pages share a rule's rendered case list between flows and skip its cases'
    /// contexts; a theme's own template still gets every case on every page.
    @Test func aThemesRuleTemplateSeesEveryCaseOnEveryPage() throws {
        let scratch = try Scratch()
        try scratch.write("flows/first.md", sampleSpec(id: "first"))
        try scratch.write("flows/second.md", sampleSpec(id: "second"))
        try scratch.write("site/theme/templates/token-rule.mustache", "<tr class=\"custom-rule\"><td>{{id}}: {{caseCount}} {{#cases}}[{{id}}]{{/cases}}</td></tr>\n")
        try scratch.write("site/site.yml", "title: Custom\n")
        let report = try scratch.build()
        #expect(report.succeeded)
        let rows = try ["first", "second"].map { page in
            try scratch.read("flows/\(page).html").split(separator: "\n").filter { $0.contains("custom-rule") }
        }
        #expect(!rows[0].isEmpty)
        #expect(rows[0] == rows[1])
        for row in rows[1] {
            // "rule: N [a][b]…": as many case ids as the count says, and at least one.
            let text = row.replacingOccurrences(of: "<tr class=\"custom-rule\"><td>", with: "")
            let count = try #require(Int(text.split(separator: " ")[1]))
            #expect(count > 0 && text.components(separatedBy: "[").count - 1 == count, "\(row)")
        }
    }

    @Test func languagesGoBeforeACardsLastClosingItem() throws {
        let card = Array("<li class=\"flow-card\"><ul><li>Bước 1 → ✓</li></ul><p>Đăng nhập</p></li>\n".utf8)
        let close = try #require(PageRenderer.lastClosingItem(in: card))
        #expect(String(decoding: card[close...], as: UTF8.self) == "</li>\n")
        #expect(String(decoding: card[..<close], as: UTF8.self).hasSuffix("<p>Đăng nhập</p>"))
        #expect(PageRenderer.lastClosingItem(in: Array("<div>no item</div>".utf8)) == nil)
        #expect(PageRenderer.lastClosingItem(in: Array("</li".utf8)) == nil)
        #expect(PageRenderer.lastClosingItem(in: Array("</li>".utf8)) == 0)
    }
}
