import FlowModel
@testable import FlowParser
import Testing

@Suite struct ParserTests {
    func parse(_ text: String) -> ParseResult { SpecParser().parse(bytes: Array(text.utf8), file: "s.md") }

    @Test func fullSpecIsModelled() throws {
        let result = parse(sampleSpec)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let flow = try #require(result.flow)
        #expect(flow.id == "sample")
        #expect(flow.actors.map(\.id) == ["user", "app", "backend"])
        #expect(flow.actors.map(\.role) == [.person, .client, .backend])
        #expect(flow.steps.map(\.number) == [1, 2, 3])
        #expect(flow.steps[0].from == "user" && flow.steps[0].to == "app")
        #expect(flow.steps[0].location == SourceLocation(file: "s.md", line: 16, column: 1))
        #expect(flow.steps[0].numberLocation.column == 5)

        let login = flow.steps[1]
        #expect(login.exchange?.request.method == "POST")
        #expect(login.exchange?.request.target == "/auth/login")
        #expect(login.exchange?.request.header("content-type") == "application/json")
        #expect(login.exchange?.request.body == #"{"username": "{{username}}"}"#)
        #expect(login.exchange?.request.references.map(\.name) == ["username"])
        #expect(login.exchange?.request.references.first?.location == SourceLocation(file: "s.md", line: 26, column: 15))
        #expect(login.alternates.map(\.label) == ["Accepted", "Rejected"])
        #expect(login.alternates.map(\.target) == [.step(3), .end(.failure)])
        #expect(login.alternates[0].expectation?.status?.codes == [200])
        #expect(login.alternates[0].expectation?.captures.first?.name == "token")
        #expect(login.alternates[1].expectation?.status?.codes == [401])
        #expect(login.alternates[1].targetLocation == SourceLocation(file: "s.md", line: 35, column: 14))

        let profile = try #require(flow.steps[2].exchange?.expectation)
        #expect(profile.status?.codes == [200, 203])
        #expect(profile.headers.first?.matcher == .matches("application/json.*"))
        #expect(profile.json.map(\.path.description) == ["$.user.name", "$.user.e-mail", "$.items[0]"])
        #expect(profile.json.map(\.matcher) == [.equals(.string("Alice")), .exists(true), .equals(.number(3))])

        #expect(flow.tokenRules.count == 1)
        #expect(flow.tokenRules[0].kind == .signature)
        #expect(flow.tokenRules[0].step == 2)
        #expect(flow.tokenRules[0].token == "id_token")
        #expect(flow.sections.map(\.heading) == ["Sample"])
        #expect(flow.stepsHeading == "Steps")
    }

    @Test func columnsCountCodePointsNotBytes() throws {
        let text = "---\nid: x\ntitle: Bước\nactors:\n  app: { name: Ứng dụng, role: client }\n---\n\n### 1. Bước một\napp → ứng\n"
        let flow = try #require(parse(text).flow)
        #expect(flow.steps[0].title == "Bước một")
        // "ứng" is not a valid actor id (ASCII only), so the line is not an actors line.
        #expect(flow.steps[0].from == "")
        let yamlTitle = "---\nid: x\ntitle: \"Şu\"\nactors: { a: { name: Çağrı, role: wizard } }\n---\n"
        let diagnostic = try #require(parse(yamlTitle).diagnostics.first { $0.code == "FS107" })
        #expect(diagnostic.location == SourceLocation(file: "s.md", line: 4, column: 35))
    }

    @Test func proseKeptInOrder() throws {
        let text = "---\nid: x\ntitle: X\nactors: { a: { name: A, role: client } }\n---\n\nIntro.\n\n## Purpose\n\nWhy.\n\n## Steps\n\n### 1. Go\na → a\n\nStep prose with `code`.\n\n- plain list\n\n## Notes\n\nAfter.\n"
        let flow = try #require(parse(text).flow)
        #expect(flow.sections.map(\.heading) == ["", "Purpose", "Notes"])
        #expect(flow.sections.map(\.placement) == [.beforeSteps, .beforeSteps, .afterSteps])
        #expect(flow.steps[0].prose.source == "Step prose with `code`.\n\n- plain list")
        #expect(flow.steps[0].isInternal)
    }

    /// cmark-gfm 0.29 gives a paragraph that a table interrupts no position; its text lies in
    /// the table's range. Sliced as line 0, it once put the front matter's closing `---` in the
    /// prose (a stray `<hr>` on the page) and pointed the section at the front matter.
    @Test func proseWithATableRightAfterAParagraphIsItsOwnText() throws {
        let text = "---\nid: x\ntitle: X\nactors: { a: { name: A, role: client } }\n---\n\n## Purpose\n\nWhy, in two\nlines.\n| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter.\n"
        let flow = try #require(parse(text).flow)
        let body = try #require(flow.sections.first { $0.heading == "Purpose" }?.body)
        #expect(body.source == "Why, in two\nlines.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter.")
        #expect(body.location.line == 9)
        #expect(!MarkdownRenderer.html(body).contains("<hr"))
        #expect(MarkdownRenderer.html(body).hasPrefix("<p>Why, in two\nlines.</p>\n<table>"))
    }

    /// The same with the token-rules table: the text before it stays the section's prose (it was
    /// dropped once the line-0 slice was), and the table is located at its header row.
    @Test func proseRightBeforeTheTokenTableIsKept() throws {
        let text = "---\nid: x\ntitle: X\nactors: { a: { name: A, role: client } }\n---\n\n## Token rules\n\nThe backend checks:\n| Rule | Token | Requirement |\n|---|---|---|\n| signature | id_token @ 1 | signed |\n\n## Steps\n\n### 1. Go\na → a\n"
        let flow = try #require(parse(text).flow)
        let body = try #require(flow.sections.first { $0.heading == "Token rules" }?.body)
        #expect(body.source == "The backend checks:")
        #expect(body.location.line == 9)
        #expect(flow.tokenRules.map(\.id) == ["signature"])
        #expect(flow.tokenRulesLocation?.line == 10)
        #expect(flow.tokenRules.first?.location.line == 12)
    }

    @Test func markdownRendererIsSafe() {
        let html = MarkdownRenderer.html(source: "[x](javascript:alert(1)) <script>alert(1)</script> [ok](https://e.com)")
        #expect(!html.contains("javascript:"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("https://e.com"))
        let raw = MarkdownRenderer.html(source: "<b>bold</b> [x](JavaScript:alert(1))", allowRawHTML: true)
        #expect(raw.contains("<b>bold</b>"))
        #expect(!raw.lowercased().contains("javascript:"))
        #expect(MarkdownRenderer.inlineHTML("a *b*") == "a <em>b</em>")
        // With raw HTML allowed cmark keeps any URL: flowspec's own check must drop these.
        let images = MarkdownRenderer.html(source: "![a](javascript:alert(1)) ![b](data:image/svg+xml,x) ![c](https://e.com/c.png)", allowRawHTML: true)
        #expect(!images.contains("javascript:") && !images.contains("data:"))
        #expect(images.contains("src=\"https://e.com/c.png\""))
    }

    @Test func targets() {
        #expect(FlowBuilder.target("5") == .step(5))
        #expect(FlowBuilder.target("end: cancelled") == .end(.cancelled))
        #expect(FlowBuilder.target("end:Success") == .end(.success))
        #expect(FlowBuilder.target("`end: locked`") == .end(Outcome("locked")))
        #expect(FlowBuilder.target("later") == nil)
        #expect(FlowBuilder.target("end: two words") == nil)
    }
}
