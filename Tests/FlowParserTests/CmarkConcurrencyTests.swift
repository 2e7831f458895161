import Foundation
import Testing
import FlowModel
@testable import FlowParser
import TestSupport

/// cmark-gfm 0.29 (Debian's) keeps the inline parser's table of special characters in globals:
/// each parser's `cmark_parser_finish` sets the extensions' characters (`~`, `:`, `w`…) before
/// it parses inlines and clears them after. Two parsers finishing at once let one clear them
/// under the other, whose autolinks and strikethrough then silently do not happen: a page
/// built twice from the same spec once differed by one link. Rendering prose on every core
/// must give what rendering it alone gives, with the inlines parsed without the lock (the
/// characters marked for good by CCmarkInlines, whose function cmark calls instead of its own).
@Suite("cmark-gfm across threads")
struct CmarkConcurrencyTests {
    /// A different text for each index and pass (`tag`), so that no render is answered by the
    /// per-thread memo instead of cmark; the tag is written as it is.
    static func prose(_ index: Int, tag: String) -> String {
        "\(tag) \(index): see https://example.com/\(index) or www.example.org, ~~gone~~.\n\nMore ~~text~~ \(index)."
    }

    @Test func proseRendersTheSameOnEveryThread() {
        let count = 6_000
        let alone = (0..<count).map { MarkdownRenderer.html(source: Self.prose($0, tag: "Alone")) }
        #expect(alone[7].contains("<a href=\"https://example.com/7\">") && alone[7].contains("<del>gone</del>"))
        #expect(CmarkDocument.parsesInlinesConcurrently, "cmark calls its own marking function: every inline parse takes the lock")
        let together = Locked([String](repeating: "", count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let html = MarkdownRenderer.html(source: Self.prose(index, tag: "Together"))
            together.withLock { $0[index] = html }
        }
        let rendered = together.value
        let differing = (0..<count).filter { rendered[$0] != alone[$0].replacingOccurrences(of: "Alone", with: "Together") }
        #expect(differing.isEmpty, "\(differing.count) of \(count) renders on several threads differ from the same render alone, e.g. \(differing.first.map { rendered[$0] } ?? "")")
    }

    /// A node's type name, taken from the table of core names or from cmark's C string, is the
    /// C string's for every kind of node, core and extension: every block and inline of a text
    /// that holds each, plus the specs of flows/.
    @Test func nodeTypeNamesAreCmarks() throws {
        let everyKind = """
            # Heading

            > quote with *emphasis*, **strong**, `code`, [link](https://example.com), ![image](a.png),
            > <span>html</span> and a line break\\
            > next line, ~~struck~~, www.example.org, done.

            <div>html block</div>

            ---

            1. item
               - [ ] task
               - [x] done

            ```swift
            let code = 1
            ```

                indented code

            | a | b |
            |---|---|
            | 1 | 2 |
            """
        var texts = [everyKind]
        let flows = packageRoot.appendingPathComponent("flows")
        for name in try FileManager.default.contentsOfDirectory(atPath: flows.path).sorted() where name.hasSuffix(".md") {
            texts.append(try String(contentsOf: flows.appendingPathComponent(name), encoding: .utf8))
        }
        var seen = Set<String>()
        for text in texts {
            let document = CmarkDocument(markdown: ArraySlice(Array(text.utf8)))
            var stack = [document.root]
            while let node = stack.popLast() {
                #expect(node.type == node.typeNameFromC)
                seen.insert(node.typeNameFromC)
                var child = node.firstChild
                while let current = child {
                    stack.append(current)
                    child = current.next
                }
            }
        }
        let expected: Set = ["document", "heading", "block_quote", "paragraph", "emph", "strong", "code", "link", "image", "html_inline", "linebreak",
                             "softbreak", "strikethrough", "html_block", "thematic_break", "list", "item", "tasklist", "code_block", "table",
                             "table_header", "table_row", "table_cell", "text"]
        #expect(expected.subtracting(seen).isEmpty, "not met: \(expected.subtracting(seen).sorted())")
    }
}
