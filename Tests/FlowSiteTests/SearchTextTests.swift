import FlowModel
import FlowParser
import Foundation
import Testing
import TestSupport
@testable import FlowSite

/// The search index's words of a Markdown block (`MarkdownRenderer.searchText`, a walk of the
/// parsed nodes) must be what cmark-gfm's own plain-text renderer gives, once the index has
/// made each run of whitespace one space (`PageRenderer.clip`): checked against the installed
/// cmark-gfm on every construct, on random mixes of them, and on every prose block of flows/.
@Suite("Search text")
struct SearchTextTests {
    static let constructs: [String] = [
        "Plain words, *emphasis*, **strong**, `code` and a [link](https://example.com \"title\").",
        "A line\nwith a soft break and a hard one  \nafter it\\\nand another.",
        "# Heading\n\n## Second *level*\nText under it.\n\nSetext\n======",
        "- one\n- two\n  - nested **bold**\n  - more\n- three",
        "1. first\n2. second\n   1. inner\n   2. inner two\n3. third, after a nested list",
        "3) paren start\n4) next\n\n7. dot start\n8. next",
        "- [ ] open task\n- [x] done task\n- plain item\n\n1. [x] ordered task\n2. after it",
        "~~struck~~ and ~single~ tildes, ~~**bold strike**~~.",
        "| a | b | c |\n|:--|:-:|--:|\n| 1 | `two` | **3** |\n| | empty | |",
        "| head |\n|------|\n| cell |\n\nAfter the table.",
        "```json\n{\"a\": 1}\n```\n\n    indented code\n\nText.",
        "> a quote\n> on two lines\n>\n> > nested quote",
        "Raw <span>inline html</span> and an entity &amp; &copy; &#x41;.",
        "<div>\nblock html\n</div>\n\nText after.",
        "Above\n\n---\n\nBelow the rule, ***\n\n* * *",
        "An image ![alt *text*](x.png) and autolinks https://example.com www.example.com a@b.co.",
        "Vietnamese: Đăng nhập bằng Apple; Turkish: Giriş yapın — “quotes” …",
        "Word<br>joined and a\u{00A0}no-break space.",
        "- item\n\n  second paragraph in the item\n\n  ```\n  code in item\n  ```\n- next",
        "1. a\n\n   - b\n\n     1. c\n2. d",
        "Trailing spaces   \n\n\n\nand blank lines.",
        "",
    ]

    @Test func everyConstructGivesCmarksWords() {
        for markdown in Self.constructs {
            #expect(Self.words(markdown) == Self.cmarkWords(markdown), "\(markdown.debugDescription)")
        }
    }

    /// Blocks made of 1–6 constructs in a random order, joined by a blank line, a newline or
    /// nothing (seeded, so a failure is the same every run).
    @Test func randomMixesGiveCmarksWords() {
        var generator = SplitMix(seed: 0x5EA2C4)
        for _ in 0..<2000 {
            let parts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Self.constructs.randomElement(using: &generator)! }
            let separator = ["\n\n", "\n", ""].randomElement(using: &generator)!
            let markdown = parts.joined(separator: separator)
            #expect(Self.words(markdown) == Self.cmarkWords(markdown), "\(markdown.debugDescription)")
        }
    }

    @Test func everyProseBlockOfTheFlowsGivesCmarksWords() throws {
        let directory = URL(fileURLWithPath: packageRoot).appendingPathComponent("flows")
        var blocks = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".md") {
            let flow = try #require(SpecParser().parse(fileAt: directory.appendingPathComponent(name).path).flow)
            let prose = flow.steps.map(\.prose) + flow.sections.map(\.body)
            for markdown in prose where !markdown.isEmpty {
                blocks += 1
                #expect(Self.words(markdown.source) == Self.cmarkWords(markdown.source), "\(name): \(markdown.source.debugDescription)")
            }
        }
        #expect(blocks > 50)
    }

    static func words(_ markdown: String) -> String {
        PageRenderer.clip(MarkdownRenderer.searchText(Markdown(source: markdown, location: SourceLocation(file: "t.md", line: 1, column: 1))), limit: 1_000_000)
    }

    /// cmark-gfm's plain-text renderer, through `plainText`, as the index kept it before.
    static func cmarkWords(_ markdown: String) -> String {
        PageRenderer.clip(MarkdownRenderer.plainText(source: markdown), limit: 1_000_000)
    }
}
