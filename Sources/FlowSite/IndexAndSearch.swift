import FlowModel
import FlowParser
import Foundation

extension PageRenderer {
    // MARK: Index card, index, search

    /// One flow's entry on the index (cached per flow between builds).
    func card(_ flow: Flow) -> [UInt8] {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        var card: TemplateFields = [
            "id": .string(flow.id), "href": .string("flows/" + flow.id + ".html"),
            "titleHTML": .string(inline(flow.title)), "lang": .string(flow.lang), "langName": .string(theme.languageName(flow.lang)),
            "stepCount": .string(String(flow.steps.count)),
            "tags": .list(flow.tags.map(TemplateValue.string)), "tagsJSON": .string(JSONText.array(flow.tags.map { JSONText.string(TerminalText.marked($0)) })),
            "hasTags": .bool(!flow.tags.isEmpty),
        ]
        if let summary = flow.summary, !summary.isEmpty { card["summaryHTML"] = .string(inline(summary)) }
        card["status"] = results == nil ? false : statusContext(results?.result(for: flow.id)?.summary, labels: labels)
        context["card"] = .object(card)
        return render(context, template: "card")
    }

    /// A cached card with its translations' languages added before its closing `</li>`.
    /// `base`: `cardLanguagesContext()`, made once for all the cards of an index (made per card,
    /// its labels and site fields were 25 000 instructions a card).
    func cardWithLanguages(_ card: [UInt8], others: [TranslationLink], base: TemplateFields? = nil) -> [UInt8] {
        guard !others.isEmpty else { return card }
        var context = base ?? cardLanguagesContext()
        context["links"] = .list(others.map { link -> TemplateValue in
            ["href": .string("flows/" + SiteBuilder.fileName(link.id)), "lang": .string(link.lang), "name": .string(theme.languageName(link.lang)), "title": .string(link.title)]
        })
        let languages = render(context, template: "card-languages")
        guard let close = Self.lastClosingItem(in: card) else { return card + languages }
        return Array(card[..<close]) + languages + Array(card[close...])
    }

    /// The context every card's language links start from.
    func cardLanguagesContext() -> TemplateFields {
        baseContext(lang: config.language, root: "", labels: theme.labels(for: config.language))
    }

    /// Where the last `</li>` of a card starts, searched from the end (Foundation's backwards
    /// `range(of:)` on the card as a String was 40 000 instructions a card, most of a one-flow
    /// rebuild's index).
    static func lastClosingItem(in card: [UInt8]) -> Int? {
        let needle: [UInt8] = Array("</li>".utf8)
        var candidate = card.count - needle.count
        while candidate >= 0 {
            if card[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            candidate -= 1
        }
        return nil
    }

    struct TagCount {
        var name: String
        var count: Int
    }

    /// The index page, ready to be rendered as it is written: its cards are most of it (1.7 MB
    /// at 2 000 flows), and it is never held whole (`render(_:to:)`).
    struct IndexPage: Sendable {
        fileprivate let context: TemplateFields
    }

    /// `cards`: each card's HTML, in index order (written into the page one after the other).
    func indexPage(cards: [[UInt8]], tags: [TagCount], flowCount: Int) -> IndexPage {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["cardsHTML"] = .chunks(cards)
        context["tags"] = .list(tags.map { ["name": .string($0.name), "count": .string(String($0.count)), "href": .string("index.html?tag=" + Self.percentEncode($0.name))] })
        context["hasTags"] = .bool(!tags.isEmpty)
        context["flowCount"] = .string(String(flowCount))
        context["totals"] = results?.summary.map { countsContext($0, labels: labels) } ?? false
        context["resultsLabel"] = .optional(results?.label)
        return IndexPage(context: context)
    }

    /// The size of the pieces the index page is handed on in. Rendered whole, the page took
    /// 1.7 MB of fresh memory at 2 000 flows, 400 page faults of a one-flow rebuild
    /// (docs/benchmarks.md, "Issue 14, twenty-eighth step").
    static let indexPieceSize = 64 * 1024

    /// Renders the index page and hands it to `sink` in pieces of about `pieceSize` bytes;
    /// rethrows the sink's first error.
    func render(_ page: IndexPage, pieceSize: Int = indexPieceSize, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let value = TemplateValue.object(page.context)
        guard let templateObserver else { return try theme.library.render(value, template: "index", pieceSize: pieceSize, to: sink) }
        var whole: [UInt8] = []
        try theme.library.render(value, template: "index", pieceSize: pieceSize) { piece in
            whole.append(contentsOf: piece)
            try sink(piece)
        }
        templateObserver(value, "index", whole)
    }

    /// The page a server shows for a missing address; links are absolute from `base-url`, since
    /// it answers at any depth.
    func notFoundPage() -> String {
        let labels = theme.labels(for: config.language)
        let context = baseContext(lang: config.language, root: config.basePath, labels: labels)
        return renderString(context, template: "not-found")
    }

    /// The search page loads only the shards that hold entries.
    func searchPage(shards: [Int]) -> String {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["searchShards"] = .list(shards.map { ["src": .string(SiteBuilder.searchShardPath($0))] })
        context["languageNames"] = .list(config.languages.map { ["code": .string($0), "name": .string(theme.languageName($0))] })
        return renderString(context, template: "search")
    }

    /// The flow's entries in the search index, as a JSON array fragment (cached per flow):
    /// `[href, title, context, text, lang]` per entry. Bytes: the shard joins them as bytes.
    func searchEntries(_ flow: Flow, titles: PlainTitles? = nil) -> [UInt8] {
        let base = "flows/" + flow.id + ".html"
        let titles = titles ?? PlainTitles(flow)
        let flowTitle = titles.flow
        // One buffer for every entry: fields are marked and quoted straight into it.
        var out: [UInt8] = []
        out.reserveCapacity(8 * 1024)
        // The clipped text of an entry, made in one buffer for all of them.
        var clipped: [UInt8] = []
        func entry(_ href: String, _ title: String, _ context: String, _ text: [UInt8]) {
            if !out.isEmpty { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: "\n")) }
            out.append(UInt8(ascii: "["))
            Self.appendSearchField(href, to: &out)
            out.append(UInt8(ascii: ","))
            Self.appendSearchField(title, to: &out)
            out.append(UInt8(ascii: ","))
            Self.appendSearchField(context, to: &out)
            out.append(UInt8(ascii: ","))
            clipped.removeAll(keepingCapacity: true)
            text.withUnsafeBufferPointer { Self.clip(utf8: $0, limit: Self.searchTextLimit, into: &clipped) }
            clipped.withUnsafeBufferPointer { Self.appendSearchField(utf8: $0, to: &out) }
            out.append(UInt8(ascii: ","))
            Self.appendSearchField(flow.lang, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        entry(base, flowTitle, "", Array(((flow.summary.map(plain) ?? "") + " " + flow.tags.joined(separator: " ")).utf8))
        var anchors = SectionAnchors(flow: flow)
        for index in flow.sections.indices where flow.sections[index].placement == .beforeSteps {
            sectionEntry(index)
        }
        // A step's text: its request, its prose's words, its alternates' labels.
        var text: [UInt8] = []
        for (position, step) in flow.steps.enumerated() {
            text.removeAll(keepingCapacity: true)
            if let request = step.exchange?.request {
                text.append(contentsOf: request.method.utf8)
                text.append(0x20)
                text.append(contentsOf: request.target.utf8)
                text.append(0x20)
            }
            text.append(contentsOf: MarkdownRenderer.searchBytes(step.prose))
            text.append(0x20)
            for (index, alternate) in step.alternates.enumerated() {
                if index > 0 { text.append(0x20) }
                text.append(contentsOf: alternate.label.utf8)
            }
            entry(base + "#" + step.anchor, "\(step.number). " + titles.steps[position], flowTitle, text)
        }
        for rule in flow.tokenRules {
            entry(base + "#rule-" + HTML.slug(rule.id), rule.id, flowTitle, Array(plain(rule.requirement).utf8))
        }
        for index in flow.sections.indices where flow.sections[index].placement == .afterSteps {
            sectionEntry(index)
        }
        func sectionEntry(_ index: Int) {
            let section = flow.sections[index]
            let text = titles.headings[index]
            guard SectionAnchors.showsHeading(section, heading: text, flowTitle: flowTitle) else { return }
            entry(base + "#" + anchors.anchor(for: text), text, flowTitle, MarkdownRenderer.searchBytes(section.body))
        }
        return out
    }

    /// Search entries keep their whole text (the search page shows a snippet around the match);
    /// the bound only stops a pathological step from bloating its shard.
    static let searchTextLimit = 20_000

    /// A field of a search entry as a script-safe JSON string, written as the page shows it:
    /// invisible characters as marks (`TerminalText.marked`).
    static func appendSearchField(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendSearchField(utf8: $0, to: &out) }
    }

    static func appendSearchField(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard TerminalText.needsMarks(utf8: bytes) else {
            JSONNode.appendQuoted(utf8: bytes, scriptSafe: true, to: &out)
            return
        }
        JSONNode.appendQuoted(TerminalText.marked(String(decoding: bytes, as: UTF8.self)), scriptSafe: true, to: &out)
    }

    /// Collapses whitespace runs to one space and keeps the first `limit` code points (then `…`).
    /// Works on UTF-8 bytes; non-ASCII whitespace is Unicode's White_Space set.
    static func clip(_ text: String, limit: Int = 240) -> String {
        var out: [UInt8] = []
        clip(text, limit: limit, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `clip`'s UTF-8 bytes, appended to `out`.
    static func clip(_ text: String, limit: Int, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { clip(utf8: $0, limit: limit, into: &out) }
    }

    /// `clip` of text given as its UTF-8 bytes (valid UTF-8), appended to `out`.
    static func clip(utf8 bytes: UnsafeBufferPointer<UInt8>, limit: Int, into out: inout [UInt8]) {
        let start = out.count
        out.reserveCapacity(start + min(bytes.count, limit * 3) + 4)
        var count = 0
        var lastSpace = true
        var clipped = false
        do {
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                if lead > 0x20, !startsWhiteSpace(bytes, at: index) {
                    // Words in any script and the single spaces between them, copied whole.
                    let runEnd = visibleRunEnd(bytes, from: index, count: &count, limit: limit)
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<runEnd]))
                    lastSpace = false
                    index = runEnd
                    if count >= limit { clipped = true; break }
                    continue
                }
                // What a run stops at: a one-byte space or control, or White_Space past ASCII
                // (two or three bytes, `startsWhiteSpace`).
                let isSpace = lead >= 0x20 || lead == 0x0A || lead == 0x09 || lead == 0x0D
                let end = min(index + (lead < 0x80 ? 1 : lead < 0xE0 ? 2 : 3), bytes.count)
                if isSpace {
                    if !lastSpace { out.append(0x20); count += 1 }
                    lastSpace = true
                } else {
                    out.append(lead)
                    count += 1
                    lastSpace = false
                }
                index = end
                if count >= limit { clipped = true; break }
            }
        }
        if clipped {
            out.append(contentsOf: [0xE2, 0x80, 0xA6])  // …
            return
        }
        while out.count > start, out.last == 0x20 { out.removeLast() }
    }

    /// Where the run from `start` (a visible code point) ends that collapsing leaves as it is:
    /// visible code points (ASCII above the space, every longer scalar but White_Space's) and
    /// single spaces between them. Adds the run's code points to `count`, stopping at the one
    /// that would pass `limit`.
    private static func visibleRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: inout Int, limit: Int) -> Int {
        var index = start
        while index < bytes.count {
            // Sixteen bytes at once where they are visible code points with lone spaces between
            // them (most prose, in any script): what the byte loop below would count and pass.
            while count + 16 <= limit, index + 17 <= bytes.count, let codePoints = visibleBlock(bytes, at: index) {
                index += 16
                count += codePoints
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            // A continuation byte belongs to the scalar already counted.
            if byte & 0xC0 == 0x80 {
                index += 1
                continue
            }
            if count >= limit { break }
            // A lone space between two visible code points is what collapsing would write.
            if byte == 0x20, index + 1 < bytes.count, bytes[index + 1] > 0x20, !startsWhiteSpace(bytes, at: index + 1) {
                count += 1
                index += 1
                continue
            }
            if byte <= 0x20 || startsWhiteSpace(bytes, at: index) { break }
            count += 1
            index += 1
        }
        return index
    }

    /// How many code points start in the 16 bytes at `index` when every one of them is visible
    /// or a single space between visible ones, else nil. Refused: controls, two spaces together
    /// (the block at `index + 1` compares each byte with the next, so 17 bytes must be there), a
    /// space at either end, and the lead bytes of White_Space past ASCII (`startsWhiteSpace`:
    /// C2, E2, E3, and E1 before 9A). Continuation bytes start no code point.
    @inline(__always)
    private static func visibleBlock(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let base = UnsafeRawPointer(bytes.baseAddress!)
        let block = base.loadUnaligned(fromByteOffset: index, as: ByteBlocks.Block.self)
        let next = base.loadUnaligned(fromByteOffset: index + 1, as: ByteBlocks.Block.self)
        let refused = ByteBlocks.below(block, 0x20) .| (ByteBlocks.equal(block, 0x20) .& ByteBlocks.equal(next, 0x20))
            .| ByteBlocks.equal(block, 0xC2) .| ByteBlocks.equal(block, 0xE2) .| ByteBlocks.equal(block, 0xE3)
            .| (ByteBlocks.equal(block, 0xE1) .& ByteBlocks.equal(next, 0x9A))
        guard !ByteBlocks.isAny(refused), block[0] != 0x20, block[15] != 0x20 else { return nil }
        let continuation = ByteBlocks.equal(block & ByteBlocks.Block(repeating: 0xC0), 0x80)
        let words = unsafeBitCast(continuation, to: SIMD2<UInt64>.self)
        return 16 - (words[0].nonzeroBitCount + words[1].nonzeroBitCount) / 8
    }

    /// Whether the scalar at `index` is one of White_Space's beyond ASCII, read from its bytes:
    /// U+0085 and U+00A0 (C2 85, C2 A0), U+1680 (E1 9A 80), U+2000–U+200A, U+2028, U+2029 and
    /// U+202F (E2 80 …), U+205F (E2 81 9F), U+3000 (E3 80 80).
    private static func startsWhiteSpace(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        func at(_ offset: Int) -> UInt8 { index + offset < bytes.count ? bytes[index + offset] : 0 }
        switch bytes[index] {
        case 0xC2: return at(1) == 0x85 || at(1) == 0xA0
        case 0xE1: return at(1) == 0x9A && at(2) == 0x80
        case 0xE2:
            if at(1) == 0x81 { return at(2) == 0x9F }
            guard at(1) == 0x80 else { return false }
            let last = at(2)
            return (0x80...0x8A).contains(last) || last == 0xA8 || last == 0xA9 || last == 0xAF
        case 0xE3: return at(1) == 0x80 && at(2) == 0x80
        default: return false
        }
    }

    /// A tag as a URL query value: every UTF-8 byte but RFC 3986's unreserved ASCII characters and
    /// `/` as `%XX` (upper-case hex), what Foundation's `addingPercentEncoding` writes for this
    /// set (a test compares the two), at a few instructions a byte instead of thousands a call.
    static func percentEncode(_ text: String) -> String {
        if text.utf8.allSatisfy(Self.isTagQueryByte) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if Self.isTagQueryByte(byte) {
                out.append(byte)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters, and `/`.
    static func isTagQueryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"): return true
        default: return false
        }
    }

}
