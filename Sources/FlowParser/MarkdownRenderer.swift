import CCmarkGFM
import FlowModel

/// Renders the prose kept in the model (never its structure) to HTML or plain text with
/// cmark-gfm. Safe by default: raw HTML is omitted and `javascript:`/`vbscript:`/`file:`/
/// `data:` link targets are dropped, even when raw HTML is allowed.
public enum MarkdownRenderer {
    /// HTML for a block of Markdown (GFM tables, strikethrough, autolinks, task lists).
    public static func html(_ markdown: Markdown, allowRawHTML: Bool = false) -> String {
        if let rendered = markdown.rendered, rendered.allowRawHTML == allowRawHTML { return rendered.html }
        return html(source: markdown.source, allowRawHTML: allowRawHTML)
    }

    /// Prose rendered from the nodes of the spec's own parse (`SpecParser.renderingProse`): the
    /// HTML and search text `html(source:)` and `searchText` give for the same top-level blocks
    /// on their own (`RenderedProseTests`), without parsing them a second time.
    static func rendered(_ blocks: [CmarkNode], of document: CmarkDocument, allowRawHTML: Bool) -> RenderedMarkdown {
        for block in blocks { neutraliseDangerousLinks(in: block) }
        var options = CMARK_OPT_DEFAULT
        if allowRawHTML { options |= CMARK_OPT_UNSAFE }
        return RenderedMarkdown(
            htmlBytes: document.renderHTML(blocks, options: options), searchBytes: document.searchBytes(of: blocks), allowRawHTML: allowRawHTML)
    }

    /// `html(markdown)`'s UTF-8 bytes: the rendered prose's own when there are some.
    public static func htmlBytes(_ markdown: Markdown, allowRawHTML: Bool = false) -> [UInt8] {
        if let rendered = markdown.rendered, rendered.allowRawHTML == allowRawHTML { return rendered.htmlBytes }
        return Array(html(source: markdown.source, allowRawHTML: allowRawHTML).utf8)
    }

    /// `searchText(markdown)`'s UTF-8 bytes: the rendered prose's own when there are some.
    public static func searchBytes(_ markdown: Markdown) -> [UInt8] {
        if let rendered = markdown.rendered { return rendered.searchBytes }
        return Array(searchText(markdown).utf8)
    }

    public static func html(source: String, allowRawHTML: Bool = false) -> String {
        let memo = RenderMemo.current
        let key = allowRawHTML ? "\u{1}" + source : source
        if let html = memo.html(key) { return html }
        let document = CmarkDocument(markdown: Array(source.utf8)[...], options: CMARK_OPT_DEFAULT)
        neutraliseDangerousLinks(in: document.root)
        var options = CMARK_OPT_DEFAULT
        if allowRawHTML { options |= CMARK_OPT_UNSAFE }
        let html = document.renderHTML(options: options)
        memo.store(html: html, for: key)
        return html
    }

    /// The words of a block of Markdown for the search index: cmark-gfm's plain text with each
    /// run of whitespace one space (`SearchText.swift`).
    public static func searchText(_ markdown: Markdown) -> String {
        if let rendered = markdown.rendered { return rendered.searchText }
        let memo = RenderMemo.current
        if let text = memo.searchText(markdown.source) { return text }
        let text = CmarkDocument(markdown: Array(markdown.source.utf8)[...], options: CMARK_OPT_DEFAULT).searchText()
        memo.store(searchText: text, source: markdown.source)
        return text
    }

    /// HTML for one line of inline Markdown (a title, an alternate label): no `<p>` wrapper.
    public static func inlineHTML(_ text: String, allowRawHTML: Bool = false) -> String {
        if isPlainInline(text) { return text }
        return unwrappingParagraph(html(source: text.replacingNewlines(), allowRawHTML: allowRawHTML))
    }

    /// `html` without a leading `<p>` Character sequence, then trailing `\n` Characters, then a
    /// trailing `</p>`: one paragraph's markup as inline HTML. Cut on bytes where the Character
    /// boundaries are sure: `<p>` followed by an ASCII byte (no grapheme rule joins an ASCII
    /// scalar to `>`), a `\n` not after `\r` (the one pair that is a Character), `</p>` after an
    /// ASCII byte (only a Prepend scalar could join `<` to what precedes it). Otherwise the
    /// Character operations decide. (As Character operations: 6 000 instructions a text.)
    static func unwrappingParagraph(_ html: String) -> String {
        var html = html
        let kept = html.withUTF8 { bytes -> Range<Int>? in
            var lower = 0, upper = bytes.count
            if upper >= 3, bytes[0] == UInt8(ascii: "<"), bytes[1] == UInt8(ascii: "p"), bytes[2] == UInt8(ascii: ">") {
                if upper > 3, bytes[3] >= 0x80 { return nil }
                lower = 3
            }
            while upper > lower, bytes[upper - 1] == 0x0A {
                if upper - 2 >= lower, bytes[upper - 2] == 0x0D { return nil }
                upper -= 1
            }
            if upper - lower >= 4, bytes[(upper - 4)..<upper].elementsEqual("</p>".utf8) {
                if upper - 5 >= lower, bytes[upper - 5] >= 0x80 { return nil }
                upper -= 4
            }
            return lower..<upper
        }
        guard let kept else {
            if html.hasPrefix("<p>") { html.removeFirst(3) }
            while html.hasSuffix("\n") { html.removeLast() }
            if html.hasSuffix("</p>") { html.removeLast(4) }
            return html
        }
        if kept.count == html.utf8.count { return html }
        return html.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[kept]), as: UTF8.self) }
    }

    /// Text that cmark would render as itself: letters, digits, non-ASCII, single spaces between
    /// words and punctuation that starts no Markdown or HTML construct, beginning with a letter
    /// or digit (no list, heading or quote marker) and with no autolink (`www.`, `://`).
    static func isPlainInline(_ text: String) -> Bool {
        var contiguous = text  // (a buffer's bytes, not the UTF-8 view's: a fifth of the cost)
        return contiguous.withUTF8 { isPlainInline(bytes: $0, text) }
    }

    private static func isPlainInline(bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var previous: UInt8 = 0x20
        var first = true
        var onlyDigits = true  // `1.` or `1)` at the start would begin an ordered list
        var ws = 0  // `w`s in a row: `www.` begins an autolink
        var colonSlashes = 0  // progress through `://`, which begins one too
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                break
            case 0x41...0x5A, 0x61...0x7A:
                onlyDigits = false
            case 0x80...0xFF:
                // A Unicode space at the start is trimmed by cmark: leave that to it.
                if first, let head = text.unicodeScalars.first, head.properties.isWhitespace { return false }
                onlyDigits = false
            case 0x20:
                if previous == 0x20 { return false }  // leading or double space
                onlyDigits = false
            case UInt8(ascii: "."), UInt8(ascii: ")"):
                if first || onlyDigits || ws >= 3 { return false }
            case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: "'"),
                 UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: ":"):
                if first { return false }
                onlyDigits = false
            default:
                return false
            }
            ws = byte == UInt8(ascii: "w") || byte == UInt8(ascii: "W") ? ws + 1 : 0
            colonSlashes = byte == UInt8(ascii: ":") ? 1 : (byte == UInt8(ascii: "/") && colonSlashes > 0 ? colonSlashes + 1 : 0)
            if colonSlashes == 3 { return false }
            first = false
            previous = byte
        }
        if first || previous == 0x20 { return false }  // empty or trailing space
        // A Unicode space at the end is trimmed by cmark too.
        if previous >= 0x80, let last = text.unicodeScalars.last, last.properties.isWhitespace { return false }
        return true
    }

    /// cmark-gfm's plain text of Markdown, exactly: titles, labels and summaries (the search
    /// index's text of a block is `searchText`).
    public static func plainText(source: String) -> String {
        let memo = RenderMemo.current
        if let plain = memo.plain(source) { return plain }
        let document = CmarkDocument(markdown: Array(source.utf8)[...], options: CMARK_OPT_DEFAULT)
        let plain = document.renderPlainText(options: CMARK_OPT_DEFAULT)
        memo.store(plain: plain, source: source)
        return plain
    }

    static let dangerousSchemes = ["javascript:", "vbscript:", "file:", "data:"]

    /// Whether a link target may appear in a page: not one of `dangerousSchemes`, whatever its
    /// case and the whitespace and NUL written into it. An ASCII target (nearly all) is read on
    /// its first bytes: its whitespace is ASCII's, and lowering its case is ASCII's. A link of
    /// 1 KB took 60 000 instructions through `lowercased` and a Character filter.
    public static func isSafeURL(_ url: String) -> Bool {
        guard url.isASCII else { return isSafeURLByCharacters(url) }
        var head: [UInt8] = []
        for byte in url.utf8 where byte != 0 && !byte.isASCIIWhitespace {
            head.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
            if head.count == 11 { break }  // "javascript:", the longest
        }
        return !dangerousSchemes.contains { head.starts(with: $0.utf8) }
    }

    /// `isSafeURL` on Characters: for any text, and the reference the tests hold the bytes to.
    static func isSafeURLByCharacters(_ url: String) -> Bool {
        let scheme = url.trimmingCharacters().lowercased().filter { !$0.isWhitespace && $0 != "\u{0}" }
        return !dangerousSchemes.contains { scheme.hasPrefix($0) }
    }

    private static func neutraliseDangerousLinks(in root: CmarkNode) {
        guard let iterator = cmark_iter_new(root.pointer) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)  // (not the type's name: a String for every node)
            guard type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE, let url = cmark_node_get_url(node) else { continue }
            if !isSafeURL(String(cString: url)) {
                cmark_node_set_url(node, "")
            }
        }
    }
}

extension String {
    /// Line breaks (`\n`, `\r`, `\r\n`) become one space each, on UTF-8 bytes.
    func replacingNewlines() -> String {
        guard utf8Contains(byte: 0x0A) || utf8Contains(byte: 0x0D) else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var previousCR = false
        for byte in utf8 {
            if byte == 0x0A, previousCR { previousCR = false; continue }
            previousCR = byte == 0x0D
            out.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rendered prose remembered per thread: a page renders the same titles several times (step,
/// branch targets, next links, contents). Prose a site build parsed comes with its HTML and
/// words (`Markdown.rendered`) and does not come here. Bounded; cleared when full. Per thread,
/// so no locks.
final class RenderMemo {
    private var htmlBySource: [SourceKey: String] = [:]
    private var plainBySource: [SourceKey: String] = [:]
    private var searchBySource: [SourceKey: String] = [:]
    private static let limit = 4096

    /// Prose as a dictionary key by its UTF-8 bytes: a String key hashes and compares under
    /// canonical equivalence (NFC work on every non-ASCII byte), which cost more than rendering
    /// a long step; and two spellings of the same text may render to different bytes.
    struct SourceKey: Hashable {
        var text: String

        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        static func == (a: SourceKey, b: SourceKey) -> Bool { a.text.utf8Compare(b.text) == 0 }
    }

    func html(_ key: String) -> String? { htmlBySource[SourceKey(text: key)] }

    func plain(_ source: String) -> String? { plainBySource[SourceKey(text: source)] }

    func searchText(_ source: String) -> String? { searchBySource[SourceKey(text: source)] }

    func store(html rendered: String, for key: String) {
        if htmlBySource.count >= Self.limit { htmlBySource.removeAll(keepingCapacity: true) }
        htmlBySource[SourceKey(text: key)] = rendered
    }

    func store(searchText text: String, source: String) {
        if searchBySource.count >= Self.limit { searchBySource.removeAll(keepingCapacity: true) }
        searchBySource[SourceKey(text: source)] = text
    }

    func store(plain text: String, source: String) {
        if plainBySource.count >= Self.limit { plainBySource.removeAll(keepingCapacity: true) }
        plainBySource[SourceKey(text: source)] = text
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<RenderMemo>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: RenderMemo {
        if let pointer = pthread_getspecific(key) { return Unmanaged<RenderMemo>.fromOpaque(pointer).takeUnretainedValue() }
        let memo = RenderMemo()
        pthread_setspecific(key, Unmanaged.passRetained(memo).toOpaque())
        return memo
    }
}
