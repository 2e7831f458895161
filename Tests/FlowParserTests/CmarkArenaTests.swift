import CCmarkGFM
import FlowModel
import Foundation
import Testing
@testable import FlowParser
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `CmarkDocument`'s parser, nodes and renderings come from its thread's arena (CCmarkInlines'
/// CmarkArena.c), reused when the thread's last document closes. Each render must be the one
/// cmark-gfm gives with its own allocator: small and large blocks, buffers that grow, many
/// chunks, documents open inside others, and every core at once.
@Suite("cmark-gfm's arena")
struct CmarkArenaTests {
    /// The HTML cmark-gfm renders with its default allocator and the extensions flowspec attaches.
    /// A document made first registers the extensions (once, through `CmarkDocument`) and
    /// marks their inline characters for good: a reference made before either would lack them.
    static func reference(_ text: String) -> String {
        _ = CmarkDocument(markdown: ArraySlice(Array("~~a~~ www.example.org".utf8)))
        let parser: OpaquePointer = cmark_parser_new(CMARK_OPT_SOURCEPOS)
        defer { cmark_parser_free(parser) }
        for name in ["table", "strikethrough", "autolink", "tasklist"] {
            if let found = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, found) }
        }
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { cmark_parser_feed(parser, $0, buffer.count) }
        }
        let root = cmark_parser_finish(parser)!
        defer { cmark_node_free(root) }
        let html = cmark_render_html(root, CMARK_OPT_SOURCEPOS, cmark_parser_get_syntax_extensions(parser))!
        defer { free(html) }
        return String(cString: html)
    }

    static func arena(_ text: String) -> String {
        CmarkDocument(markdown: ArraySlice(Array(text.utf8))).renderHTML(options: CMARK_OPT_SOURCEPOS)
    }

    /// Texts whose blocks take every path of the arena: a paragraph of 200 KB (a block larger
    /// than a chunk, and a buffer grown far past one), a table of 3 000 rows (thousands of
    /// nodes over many chunks), and the specs of flows/.
    static func texts() throws -> [String] {
        let words = (0..<20_000).map { "word\($0) ~~struck~~ www.example.org/\($0)" }
        let longParagraph = words.joined(separator: " ")
        let table = "| a | b |\n|---|---|\n" + (0..<3_000).map { "| \($0) | *\($0)* |" }.joined(separator: "\n")
        var texts = ["# Title\n\nA [link](https://example.com).", longParagraph, table]
        let flows = packageRoot.appendingPathComponent("flows")
        for name in try FileManager.default.contentsOfDirectory(atPath: flows.path).sorted() where name.hasSuffix(".md") {
            texts.append(try String(contentsOf: flows.appendingPathComponent(name), encoding: .utf8))
        }
        return texts
    }

    @Test func rendersAsCmarksOwnAllocator() throws {
        let texts = try Self.texts()
        #expect(texts[1].utf8.count > 200_000)
        #expect(Self.reference(texts[1]).contains("<del>struck</del>"), "the reference has the extensions")
        for text in texts {
            let expected = Self.reference(text)
            #expect(expected.count > 20)
            #expect(Self.arena(text) == expected, "render of a text of \(text.utf8.count) bytes")
        }
    }

    /// A document open while others open, render and close on the same thread: their closing
    /// must not reuse the memory of the one still open, which renders last.
    @Test func aDocumentOpenInsideAnotherKeepsItsMemory() throws {
        let texts = try Self.texts()
        let outer = CmarkDocument(markdown: ArraySlice(Array(texts[2].utf8)))
        for text in texts {
            #expect(Self.arena(text) == Self.reference(text))
        }
        #expect(outer.renderHTML(options: CMARK_OPT_SOURCEPOS) == Self.reference(texts[2]))
    }

    /// Threads that parse and exit: each frees its arena at exit (the key's destructor), and
    /// the next thread starts its own.
    @Test func threadsThatExitFreeTheirArenas() throws {
        let text = try Self.texts()[2]
        let expected = Self.reference(text)
        let mismatches = Locked(0)
        for _ in 0..<4 {
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                let thread = Thread {
                    if Self.arena(text) != expected { mismatches.withLock { $0 += 1 } }
                    done.leave()
                }
                thread.start()
            }
            done.wait()
        }
        #expect(mismatches.value == 0)
    }

    @Test func rendersTheSameOnEveryThread() throws {
        let texts = try Self.texts()
        let expected = texts.map(Self.reference)
        let rounds = 8 * texts.count
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: rounds) { round in
            let index = round % texts.count
            if Self.arena(texts[index]) != expected[index] { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.value == 0)
    }
}
