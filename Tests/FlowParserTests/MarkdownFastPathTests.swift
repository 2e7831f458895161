import FlowModel
import Yams
import Foundation
import Testing
import TestSupport
@testable import FlowParser

/// `inlineHTML` skips cmark for text cmark would render as itself; this holds it to cmark.
@Suite("Markdown fast path")
struct MarkdownFastPathTests {
    /// What cmark renders for one line, without the fast path.
    static func viaCmark(_ text: String) -> String {
        unwrapped(MarkdownRenderer.html(source: text.replacingNewlines()))
    }

    /// A paragraph's markup unwrapped with Character operations.
    static func unwrapped(_ html: String) -> String {
        var html = html
        if html.hasPrefix("<p>") { html.removeFirst(3) }
        while html.hasSuffix("\n") { html.removeLast() }
        if html.hasSuffix("</p>") { html.removeLast(4) }
        return html
    }

    static let samples = [
        "Sign in with Apple", "Bước 6: TVL Backend xác thực id_token", "Kullanıcı giriş yapar, İzin verir",
        "User (browser) opens /login?next=home", "It's done.", "1. first", "1) first", "12 steps", "2024-01-01",
        "- item", "x - y", "# heading", "> quote", "see www.apple.com", "https://apple.com/x", "a  b", " lead", "trail ",
        "a\u{00A0}", "\u{00A0}a", "a\u{2003}b", "*em*", "_em_", "a_b_c", "`code`", "a < b", "a & b", "\"quoted\"", "[link](x)",
        "a!", "~strike~", "back\\slash", "", " ", "ẞ ǅ ﬁ 🍎", "end.", "3.14 is pi", "v1.2", "e-mail: a@b.c", "ok:", "a:b",
    ]

    @Test func fastPathAgreesWithCmark() throws {
        var titles = Self.samples
        let flowsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("flows").path
        for name in try FileManager.default.contentsOfDirectory(atPath: flowsDirectory) where name.hasSuffix(".md") {
            let result = SpecParser().parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: flowsDirectory + "/" + name))), file: name)
            let flow = try #require(result.flow)
            titles.append(flow.title)
            titles += flow.steps.map(\.title)
            titles += flow.steps.flatMap { $0.alternates.map(\.label) }
        }
        #expect(titles.count > 60)
        var fast = 0
        for title in titles {
            if MarkdownRenderer.isPlainInline(title) { fast += 1 }
            #expect(MarkdownRenderer.inlineHTML(title) == Self.viaCmark(title), "\(title.debugDescription)")
        }
        #expect(fast > 10, "the fast path should serve ordinary titles")
    }

    /// The byte cut of `<p>`, line feeds and `</p>` is the Character one, around combining
    /// marks, CR LF and Prepend scalars too.
    @Test func paragraphsUnwrapAsCharactersDo() {
        let alphabet = ["<p>", "</p>", "\n", "\r", "\r\n", "\u{301}", "a", "\u{600}", "<", "p", ">", "/", "é", "👍", " "]
        var random = SplitMix(seed: 51)
        var changed = 0
        for _ in 0..<20000 {
            let middle = (0..<random.next(5)).map { _ in alphabet[random.next(alphabet.count)] }.joined()
            let text = (random.next(3) > 0 ? "<p>" : "") + middle + (random.next(3) > 0 ? "</p>" : "") + String(repeating: "\n", count: random.next(3))
            let expected = Self.unwrapped(text)
            #expect(Array(MarkdownRenderer.unwrappingParagraph(text).unicodeScalars) == Array(expected.unicodeScalars), "\(text.debugDescription)")
            if expected != text { changed += 1 }
        }
        #expect(changed > 10000, "\(changed) texts cut")
    }

    @Test func memoizedRenderingGivesTheSameBytes() {
        let source = "Some *prose* with a [link](https://example.com) and `code`.\n\n- a\n- b\n"
        let first = MarkdownRenderer.html(source: source)
        let plain = MarkdownRenderer.plainText(source: source)
        #expect(MarkdownRenderer.html(source: source) == first)
        #expect(MarkdownRenderer.html(source: source, allowRawHTML: true) == first)
        #expect(MarkdownRenderer.plainText(source: source) == plain)
        #expect(plain.contains("prose") && !plain.contains("*"))
        // Raw HTML is kept apart from the safe rendering of the same source.
        let raw = "<b>bold</b> text"
        #expect(MarkdownRenderer.html(source: raw) != MarkdownRenderer.html(source: raw, allowRawHTML: true))
        #expect(!MarkdownRenderer.html(source: raw).contains("<b>"))
    }
}

/// Specs are composed with Yams' basic resolver (no regular expression per key); typed values
/// are resolved on demand and must read as YAML 1.1 reads them.
@Suite("YAML values")
struct YAMLValueTests {
    @Test func expectValuesKeepTheirYAMLTypes() throws {
        let literal = """
        json:
          $.a: 1
          $.b: true
          $.c: null
          $.d: "1"
          $.e: yes
          $.f: 1.5
          $.g: !!str true
          $.h: ~
          $.i: 0x1F
          $.j: [1, "x", false]
          $.k: { exists: false }
          $.l: Apple
        """
        let node = try #require(try Yams.compose(yaml: literal, .basic, .default, .utf8))
        let json = try #require(node["json"]?.mapping)
        var values: [String: JSONNode] = [:]
        for (key, value) in json { values[key.string ?? ""] = jsonValue(value) }
        #expect(values["$.a"] == .number(1))
        #expect(values["$.b"] == .bool(true))
        #expect(values["$.c"] == .null)
        #expect(values["$.d"] == .string("1"))
        #expect(values["$.e"] == .bool(true))
        #expect(values["$.f"] == .number(1.5))
        #expect(values["$.g"] == .string("true"))
        #expect(values["$.h"] == .null)
        #expect(values["$.i"] == .number(31))
        #expect(values["$.j"] == .array([.number(1), .string("x"), .bool(false)]))
        #expect(values["$.l"] == .string("Apple"))
        #expect(json.first { $0.key.string == "$.k" }?.value["exists"]?.typed.bool == false)
    }

    @Test func duplicateKeysAreStillFound() {
        let result = SpecParser().parse(bytes: Array("---\nid: a\nid: b\ntitle: T\n---\n# T\n".utf8), file: "dup.md")
        #expect(result.diagnostics.contains { $0.code == "FS102" && $0.message.lowercased().contains("duplicate") }, "\(result.diagnostics.map(\.message))")
    }
}
