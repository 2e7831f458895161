import FlowLint
import FlowModel
import Foundation
import Mustache
import Testing
@testable import FlowSite

/// The theme renderer (`TemplateLibrary`) against swift-mustache, the reference implementation of
/// the same syntax: same templates, same context, same bytes.
@Suite("Template engine")
struct TemplateEngineTests {
    /// Renders with swift-mustache.
    static func reference(_ templates: [String: String], _ context: TemplateValue, _ name: String) throws -> String {
        var library = MustacheLibrary()
        for (templateName, text) in templates { library.register(try MustacheTemplate(string: text), named: templateName) }
        return library.render(context.anyValue, withTemplate: name) ?? "<no template>"
    }

    static func ours(_ templates: [String: String], _ context: TemplateValue, _ name: String) throws -> String {
        var library = TemplateLibrary()
        for (templateName, text) in templates { library.register(try CompiledTemplate(text), named: templateName) }
        return String(decoding: library.render(context, template: name), as: UTF8.self)
    }

    /// Renders with ours, handed on in pieces of `pieceSize` bytes (as the index page is), put
    /// back together.
    static func oursInPieces(_ templates: [String: String], _ context: TemplateValue, _ name: String, pieceSize: Int) throws -> String {
        var library = TemplateLibrary()
        for (templateName, text) in templates { library.register(try CompiledTemplate(text), named: templateName) }
        var bytes: [UInt8] = []
        try library.render(context, template: name, pieceSize: pieceSize) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func compare(_ templates: [String: String], _ context: TemplateValue, _ name: String = "main", sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let expected = try reference(templates, context, name)
        let actual = try ours(templates, context, name)
        #expect(actual == expected, "template \(name): \(templates[name] ?? "")", sourceLocation: sourceLocation)
        // In the smallest pieces: cut after every part of a `.chunks` value that is not indented.
        let inPieces = try oursInPieces(templates, context, name, pieceSize: 1)
        #expect(inPieces == expected, "template \(name) in pieces: \(templates[name] ?? "")", sourceLocation: sourceLocation)
    }

    static let context: TemplateValue = [
        "name": "Ana <b> & \"Bob\" 'x'",
        "yes": true, "no": false, "empty": [], "text": "",
        "items": [["n": "1", "sub": ["a", "b"]], ["n": "2", "sub": []]],
        "nested": ["deep": ["value": "found"], "name": "inner"],
        "labels": .table(TemplateTable(["hello": "Xin chào", "bye": "Güle güle"])),
        "multi": "line 1\nline 2\n",
        "raw": .bytes(Array("<i>raw</i> & more".utf8)),
        "pieces": .chunks([Array("<li>one</li>".utf8), [], Array("<li>tw".utf8), Array("o & ".utf8), Array("\"three\"</li>\n".utf8)]),
        "noPieces": .chunks([]),
    ]

    @Test(arguments: [
        "plain text, no tags\n",
        "Hello {{name}}! {{{name}}} {{&name}}",
        "{{missing}}|{{nested.deep.value}}|{{nested.missing.value}}|{{labels.hello}}|{{labels.none}}",
        "{{#items}}[{{n}}:{{#sub}}{{.}},{{/sub}}{{^sub}}none{{/sub}}]{{/items}}",
        "{{#nested}}{{name}} {{.name}} {{deep.value}}{{/nested}}",
        "{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{^no}}notN{{/no}}{{^yes}}notY{{/yes}}{{#text}}T{{/text}}{{^empty}}E{{/empty}}{{#empty}}X{{/empty}}",
        "<ul>\n  {{#items}}\n  <li>{{n}}</li>\n  {{/items}}\n</ul>\n",
        "  {{#yes}}  \n  indented\n  {{/yes}}  \nafter\n",
        "a {{#yes}}inline{{/yes}} b\n{{! a comment }}\n  {{! standalone comment }}  \nc\n",
        "{{#items}}{{#sub}}{{n}}{{.}}{{/sub}}{{/items}}",
        "begin\n  {{>part}}\nend\n",
        "begin {{>part}} end\n",
        "{{<layout}}\n{{$title}}Overridden {{name}}{{/title}}\n{{$body}}\n<p>{{labels.bye}}</p>\n{{/body}}\n{{/layout}}\n",
        "{{<layout}}{{/layout}}",
        "{{multi}}|  {{{multi}}}|\n",
        "{ not a tag } {x} {{yes}} {{no}}\r\nwindows\r\n",
        "{{#yes}}\r\n  crlf standalone\r\n{{/yes}}\r\n",
        "{{{raw}}}|{{raw}}|<ul>{{{pieces}}}</ul>|{{pieces}}|[{{{noPieces}}}]\n",
        "{{#pieces}}has{{/pieces}}{{^pieces}}none{{/pieces}}\n  {{{pieces}}}\n",
        // Pieces in an indented partial: the line after them is indented, so the output is not
        // handed on between them there.
        "<ul>\n  {{>pieceList}}\n</ul>\n{{>pieceList}}\n",
    ])
    func matchesTheReference(template: String) throws {
        let templates = [
            "main": template,
            "part": "<p>{{name}}</p>\n<p>{{labels.hello}}</p>\n",
            "pieceList": "{{{pieces}}}\nafter {{name}}\n",
            "layout": "<title>{{$title}}Default{{/title}}</title>\n<main>\n  {{$body}}default body{{/body}}\n</main>\n",
        ]
        try Self.compare(templates, Self.context)
    }

    @Test func everyPageOfTheRepositoryMatchesTheReference() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        var templates: [String: String] = [:]
        for (name, bytes) in theme.files where name.hasPrefix("templates/") && name.hasSuffix(".mustache") {
            templates[String(name.dropFirst("templates/".count).dropLast(".mustache".count))] = String(decoding: bytes, as: UTF8.self)
        }
        var library = MustacheLibrary()
        for (name, text) in templates { library.register(try MustacheTemplate(string: text), named: name) }
        let reference = library
        let log = RenderLog()
        let renderer = PageRenderer(theme: theme, config: SiteConfig(), results: nil, headExtra: "", templateObserver: { context, name, bytes in
            log.add(name: name, ours: String(decoding: bytes, as: UTF8.self), reference: reference.render(context.anyValue, withTemplate: name) ?? "")
        })
        let flows = Linter().lint(paths: [packageRoot + "/flows"]).flows
        #expect(flows.count >= 5)
        for flow in flows {
            _ = renderer.flowPage(flow, translations: flows.filter { ($0.translationOf ?? $0.id) == (flow.translationOf ?? flow.id) }.map {
                TranslationLink(id: $0.id, lang: $0.lang, title: $0.title)
            })
            _ = renderer.card(flow)
        }
        try renderer.render(renderer.indexPage(cards: [Array("<li>x</li>".utf8), Array("<li>y & z</li>".utf8)], tags: [.init(name: "auth", count: 2)], flowCount: flows.count),
                            pieceSize: 4) { _ in }
        _ = renderer.searchPage(shards: [0, 2, 3])
        let renders = log.all
        #expect(Set(renders.map(\.name)).isSuperset(of: ["flow", "card", "index", "search", "token-cases"]))
        for render in renders where render.ours != render.reference {
            let difference = zip(render.ours, render.reference).prefix { $0 == $1 }.count
            Issue.record("template \(render.name) differs at character \(difference): ours …\(render.ours.dropFirst(max(0, difference - 40)).prefix(120))… reference …\(render.reference.dropFirst(max(0, difference - 40)).prefix(120))…")
        }
    }

    @Test(arguments: [
        ("{{#open}}never closed", "1:22", "never closed"),
        ("line\n  {{#a}}x{{/b}}", "2:13", "closes `a`"),
        ("{{/a}}", "1:4", "closes nothing"),
        ("{{=<% %>=}}", "1:1", "set delimiters"),
        ("x {{name", "1:9", "unfinished tag"),
        ("{{! unfinished comment", "1:1", "unfinished comment"),
        ("{{<parent}}{{name}}{{/parent}}", "1:1", "only `{{$block}}`"),
        ("{{upper(name)}}", "1:8", "transforms"),
    ])
    func parseErrorsSayWhere(template: String, position: String, message: String) {
        do {
            _ = try CompiledTemplate(template)
            Issue.record("\(template) parsed")
        } catch let error as TemplateError {
            #expect("\(error.line):\(error.column)" == position, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// A theme without overrides is the embedded one made once per process (`Theme.embedded`,
    /// which `SiteBuilder.prepare` warms): it equals the theme `load` makes through its whole
    /// path (an empty override folder), file for file, label for label, page for page.
    /// The index page is handed to its file in pieces as it is rendered, never held whole: the
    /// pieces make the page rendered in one piece, each but the last at least the piece size,
    /// and a failing sink stops them and is rethrown.
    @Test func theIndexPageIsHandedOnInPiecesThatMakeTheWholePage() throws {
        struct Failure: Error {}
        let renderer = PageRenderer(theme: try Theme.load(overrideDirectory: nil), config: SiteConfig(), results: nil, headExtra: "")
        let cards = (0..<300).map { Array("<li class=\"flow-card\"><a href=\"flows/f\($0).html\">Flow \($0) &amp; more</a></li>\n".utf8) }
        let page = renderer.indexPage(cards: cards, tags: [.init(name: "auth", count: 300)], flowCount: cards.count)
        var whole: [[UInt8]] = []
        try renderer.render(page, pieceSize: 1 << 30) { whole.append(Array($0)) }
        #expect(whole.count == 1)
        var pieces: [[UInt8]] = []
        try renderer.render(page, pieceSize: 1024) { pieces.append(Array($0)) }
        #expect(pieces.count > whole[0].count / 1024 / 2)
        #expect(Array(pieces.joined()) == whole[0])
        #expect(pieces.dropLast().allSatisfy { $0.count >= 1024 })
        var calls = 0
        #expect(throws: Failure.self) {
            try renderer.render(page, pieceSize: 1024) { _ in
                calls += 1
                if calls == 2 { throw Failure() }
            }
        }
        #expect(calls == 2)
    }

    @Test func theSharedEmbeddedThemeIsTheOneLoadMakes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-empty-theme-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Theme.load(overrideDirectory: folder)
        let shared = try Theme.load(overrideDirectory: nil)
        let embedded = try #require(Theme.embedded)
        #expect(shared.hash == embedded.hash)
        #expect(made.hash == shared.hash)
        #expect(made.files == shared.files && made.overridden == shared.overridden && made.overridden.isEmpty)
        #expect(made.labelTables == shared.labelTables)
        #expect(made.files.count == EmbeddedTheme.files.count)
        let flows = Linter().lint(paths: [packageRoot + "/flows"]).flows
        let flow = try #require(flows.first)
        func page(_ theme: Theme) -> [UInt8] { PageRenderer(theme: theme, config: SiteConfig(), results: nil, headExtra: "").flowPageBytes(flow, translations: []) }
        #expect(page(made) == page(shared))
        // Label overrides and an override folder with files still make a theme of their own.
        let relabelled = try Theme.load(overrideDirectory: nil, labelOverrides: ["en": ["search": "Find it"]])
        #expect(relabelled.hash != shared.hash)
        #expect(relabelled.labels(for: "en")["search"] == "Find it")
    }

    /// The labels composed when flowspec was built are labels.yml read as a build reads an
    /// override of it, and an override still replaces them.
    @Test func embeddedLabelsAreTheEmbeddedFileRead() throws {
        let read = try Theme.readLabels(Array(try #require(EmbeddedTheme.files["labels.yml"]).utf8))
        let embedded = try #require(EmbeddedTheme.labels)
        #expect(embedded.tables == read.tables)
        #expect(embedded.languageNames == read.languageNames)
        #expect(embedded.tables.count >= 3)
        #expect(embedded.tables["en"]?.isEmpty == false)
        #expect(embedded.languageNames["vi"] == "Tiếng Việt")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-labels-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "en:\n  search: Find it\n".write(toFile: folder + "/labels.yml", atomically: true, encoding: .utf8)
        let overridden = try Theme.load(overrideDirectory: folder)
        #expect(overridden.labels(for: "en")["search"] == "Find it")
        #expect(overridden.labels(for: "vi")["search"] == "Find it", "the override has only English")
    }

    @Test func aBrokenThemeOverrideIsNamedWithItsLine() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        try scratch.write("site/theme/templates/card.mustache", "{{#card}}\n<li>{{title}</li>\n{{/card}}\n")
        #expect {
            try scratch.build()
        } throws: { error in
            "\(error)".contains("templates/card.mustache:2:")
        }
    }

    /// Keys are compared by their first 15 bytes and length (`TemplateKey`), then as Strings when
    /// longer: names that share 8, 15 or all but one byte, and one that is a prefix of another,
    /// each find their own field, inside sections and lists too.
    @Test func namesThatShareTheirFirstBytesFindTheirOwnField() throws {
        let names = ["a", "ab", "abcdefgh", "abcdefghi", "abcdefghX", "abcdefghijklmno", "abcdefghijklmnp", "abcdefghijklmnoX",
                     "abcdefghijklmnoY", "abcdefghijklmnoXZ", "z", "abcdefghijklmnoXYZ_long"]
        var fields = TemplateFields()
        for (index, name) in names.enumerated() { fields[name] = .string("v\(index)") }
        fields["list"] = .list([.object(fields), .object(["abcdefghijklmnoX": "inner"])])
        let tags = names.map { "{{\($0)}}" }.joined(separator: "|")
        try Self.compare(["main": tags + "\n{{#list}}" + tags + "\n{{/list}}{{#abcdefghijklmnoXZ}}{{.}}{{/abcdefghijklmnoXZ}}"], .object(fields))
    }

    /// A label table is searched by key, then by name where keys are equal: the same names, as
    /// a table, each give their own label, and names it lacks give nothing (the reference
    /// renderer reads the table as a dictionary).
    @Test func tableNamesThatShareTheirFirstBytesFindTheirOwnLabel() throws {
        let names = ["a", "ab", "abcdefgh", "abcdefghi", "abcdefghX", "abcdefghijklmno", "abcdefghijklmnp", "abcdefghijklmnoX",
                     "abcdefghijklmnoY", "abcdefghijklmnoXZ", "z", "abcdefghijklmnoXYZ_long", "abcdefghijklmnoXYW_long"]
        let table = TemplateTable(Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, "v\($0)") }))
        let tags = (names + ["b", "abcdefghijklmnoXYV_long", "abcdefghijklmnoZ"]).map { "{{labels.\($0)}}" }.joined(separator: "|")
        try Self.compare(["main": tags], ["labels": .table(table)])
    }

    /// A name given twice in a literal keeps its first place and its last value.
    @Test func aNameGivenTwiceKeepsItsLastValue() {
        let fields = TemplateFields([("a", "1"), ("b", "2"), ("a", "3"), ("abcdefghijklmnoXZ", "4"), ("abcdefghijklmnoXZ", "5")])
        #expect(fields.entries.map(\.name) == ["a", "b", "abcdefghijklmnoXZ"])
        #expect(fields.entries.map { if case .string(let text) = $0.value { text } else { "" } } == ["3", "2", "5"])
    }

    /// `TemplateLibrary` reads a field's value at its entry's address.
    @Test func anEntrysValueIsAtItsAddress() {
        #expect(MemoryLayout<TemplateFields.Entry>.offset(of: \TemplateFields.Entry.value) == 0)
    }

    @Test func escapingIsByteExactForEveryScript() {
        var out: [UInt8] = []
        HTML.appendEscaped("Bước <12> & \"Güle\" 'ş' 🍎", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "Bước &lt;12&gt; &amp; &quot;Güle&quot; &#39;ş&#39; 🍎")
    }
}

final class RenderLog: @unchecked Sendable {
    struct Render { var name: String; var ours: String; var reference: String }
    private var renders: [Render] = []
    private let lock = NSLock()

    func add(name: String, ours: String, reference: String) {
        lock.withLock { renders.append(Render(name: name, ours: ours, reference: reference)) }
    }

    var all: [Render] { lock.withLock { renders } }
}

/// The byte-level text helpers against the Character-level versions they replaced.
@Suite("Text helpers")
struct TextHelperTests {
    /// The previous implementation of `PageRenderer.clip`, kept as the reference.
    static func referenceClip(_ text: String, limit: Int = 240) -> String {
        var collapsed = String.UnicodeScalarView()
        var count = 0
        var lastSpace = true
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || (scalar.value >= 0x80 && scalar.properties.isWhitespace) {
                if !lastSpace { collapsed.append(" "); count += 1 }
                lastSpace = true
            } else {
                collapsed.append(scalar)
                count += 1
                lastSpace = false
            }
            if count >= limit { collapsed.append("…"); break }
        }
        while collapsed.last == " " { collapsed.removeLast() }
        return String(collapsed)
    }

    static let samples: [String] = [
        "", " ", "plain", "  leading and trailing  ", "tabs\tand\nnew\r\nlines",
        "Bước 6: TVL Backend xác thực id_token với\u{00A0}Apple\u{2003}và\u{3000}tạo phiên",
        "Kullanıcı giriş yapar ve İzin verir; şifre ğ ü ö ç",
        "emoji 🍎🍏 and combining e\u{0301}", "\u{2028}line\u{2029}separators\u{0085}next",
        String(repeating: "word ", count: 100), String(repeating: "ố", count: 300),
        String(repeating: "a", count: 239) + " b", String(repeating: "a", count: 240) + " b",
    ]

    @Test func clipMatchesTheCharacterLevelVersion() {
        for sample in Self.samples {
            for limit in [1, 5, 240] {
                #expect(PageRenderer.clip(sample, limit: limit) == Self.referenceClip(sample, limit: limit), "\(sample.debugDescription) at \(limit)")
            }
        }
    }

    @Test func jsonStringsParseBackToTheirText() throws {
        for sample in Self.samples + ["quote \" backslash \\ <script> & \u{01} \u{1F}"] {
            let encoded = JSONText.string(sample)
            let decoded = try JSONSerialization.jsonObject(with: Data(("[" + encoded + "]").utf8)) as? [String]
            #expect(decoded == [sample], "\(sample.debugDescription) → \(encoded)")
            #expect(!encoded.contains("<") && !encoded.contains("\u{2028}"))
        }
    }
}
