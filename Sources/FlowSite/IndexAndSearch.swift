import FlowModel
import FlowParser
import Foundation

extension PageRenderer {
    // MARK: Index card, index, search

    /// One flow's entry on the index (cached per flow between builds).
    func card(_ flow: Flow) -> String {
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
        return renderString(context, template: "card")
    }

    /// A cached card with its translations' languages added before its closing `</li>`.
    func cardWithLanguages(_ card: String, others: [TranslationLink]) -> String {
        guard !others.isEmpty else { return card }
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["links"] = .list(others.map { link -> TemplateValue in
            ["href": .string("flows/" + SiteBuilder.fileName(link.id)), "lang": .string(link.lang), "name": .string(theme.languageName(link.lang)), "title": .string(link.title)]
        })
        let languages = renderString(context, template: "card-languages")
        guard let close = card.range(of: "</li>", options: .backwards) else { return card + languages }
        return String(card[..<close.lowerBound]) + languages + String(card[close.lowerBound...])
    }

    struct TagCount {
        var name: String
        var count: Int
    }

    func indexPage(cardsHTML: [UInt8], tags: [TagCount], flowCount: Int) -> [UInt8] {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["cardsHTML"] = .bytes(cardsHTML)
        context["tags"] = .list(tags.map { ["name": .string($0.name), "count": .string(String($0.count)), "href": .string("index.html?tag=" + percentEncode($0.name))] })
        context["hasTags"] = .bool(!tags.isEmpty)
        context["flowCount"] = .string(String(flowCount))
        context["totals"] = results?.summary.map { countsContext($0, labels: labels) } ?? false
        context["resultsLabel"] = .optional(results?.label)
        return render(context, template: "index")
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
    /// `[href, title, context, text, lang]` per entry.
    func searchEntries(_ flow: Flow) -> String {
        let base = "flows/" + flow.id + ".html"
        let flowTitle = plain(flow.title)
        // One buffer for every entry: fields are marked and quoted straight into it.
        var out: [UInt8] = []
        out.reserveCapacity(8 * 1024)
        func entry(_ href: String, _ title: String, _ context: String, _ text: String) {
            if !out.isEmpty { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: "\n")) }
            out.append(UInt8(ascii: "["))
            for (index, field) in [href, title, context, Self.clip(text, limit: Self.searchTextLimit), flow.lang].enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                // The search shows what the page shows: invisible characters as marks.
                JSONNode.appendQuoted(TerminalText.marked(field), scriptSafe: true, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        entry(base, flowTitle, "", (flow.summary.map(plain) ?? "") + " " + flow.tags.joined(separator: " "))
        var anchors = SectionAnchors(flow: flow)
        for section in flow.sections where section.placement == .beforeSteps {
            sectionEntry(section)
        }
        for step in flow.steps {
            var text = MarkdownRenderer.plainText(step.prose)
            if let request = step.exchange?.request { text = request.method + " " + request.target + " " + text }
            text += " " + step.alternates.map(\.label).joined(separator: " ")
            entry(base + "#" + step.anchor, "\(step.number). " + plain(step.title), flowTitle, text)
        }
        for rule in flow.tokenRules {
            entry(base + "#rule-" + HTML.slug(rule.id), rule.id, flowTitle, plain(rule.requirement))
        }
        for section in flow.sections where section.placement == .afterSteps {
            sectionEntry(section)
        }
        func sectionEntry(_ section: ProseSection) {
            guard SectionAnchors.showsHeading(section, flowTitle: flowTitle) else { return }
            let text = plain(section.heading)
            entry(base + "#" + anchors.anchor(for: text), text, flowTitle, MarkdownRenderer.plainText(section.body))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Search entries keep their whole text (the search page shows a snippet around the match);
    /// the bound only stops a pathological step from bloating its shard.
    static let searchTextLimit = 20_000

    /// Collapses whitespace runs to one space and keeps the first `limit` code points (then `…`).
    /// Works on UTF-8 bytes; non-ASCII whitespace is Unicode's White_Space set.
    static func clip(_ text: String, limit: Int = 240) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(text.utf8.count, limit * 3) + 4)
        var count = 0
        var lastSpace = true
        var clipped = false
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                if lead > 0x20, lead < 0x80 {
                    // A run of visible ASCII, copied whole (one code point per byte).
                    var runEnd = index + 1
                    let runLimit = min(bytes.count, index + (limit - count))
                    while runEnd < runLimit, bytes[runEnd] > 0x20, bytes[runEnd] < 0x80 { runEnd += 1 }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<runEnd]))
                    count += runEnd - index
                    lastSpace = false
                    index = runEnd
                    if count >= limit { clipped = true; break }
                    continue
                }
                let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                let end = min(index + length, bytes.count)
                var isSpace = lead == 0x20 || lead == 0x0A || lead == 0x09 || lead == 0x0D
                if length > 1, end - index == length {
                    var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                    for continuation in bytes[(index + 1)..<end] { value = value << 6 | UInt32(continuation & 0x3F) }
                    isSpace = value == 0x85 || value == 0xA0 || value == 0x1680 || (0x2000...0x200A).contains(value)
                        || value == 0x2028 || value == 0x2029 || value == 0x202F || value == 0x205F || value == 0x3000
                }
                if isSpace {
                    if !lastSpace { out.append(0x20); count += 1 }
                    lastSpace = true
                } else {
                    if length == 1 { out.append(lead) } else { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end])) }
                    count += 1
                    lastSpace = false
                }
                index = end
                if count >= limit { clipped = true; break }
            }
        }
        if clipped { return String(decoding: out, as: UTF8.self) + "…" }
        while out.last == 0x20 { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// A tag as a URL query value: Foundation's percent-encoding of everything but RFC 3986's
    /// unreserved ASCII characters and `/`.
    func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: Self.tagQueryAllowed) ?? text
    }

    static let tagQueryAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~/")
}
