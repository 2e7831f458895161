import FlowModel
import FlowParser

/// The other flows a page's language switcher links to (translations of one flow, itself included).
struct TranslationLink: Hashable, Sendable {
    var id: String
    var lang: String
    var title: String
}

/// Turns flows into page contexts and renders them through the theme's templates. Holds no
/// mutable state: one instance renders pages on all cores at once.
struct PageRenderer: Sendable {
    let theme: Theme
    let config: SiteConfig
    let results: SiteResults?
    /// Extra markup for `<head>` (the reload script in `serve`); empty for `build`.
    let headExtra: String
    /// The provider profiles of the build: a rule lists only the cases its flow's provider runs.
    var providers: ProviderCatalog = .builtIn
    /// Rendered token-case lists, shared by every page of a language (they depend only on the
    /// rule family and the labels when there are no results).
    let memo = Memo()
    /// Sees every template rendering (context, template name, output); tests compare the output
    /// with a reference Mustache implementation.
    var templateObserver: (@Sendable (TemplateValue, String, [UInt8]) -> Void)? = nil

    private func render(_ context: [String: TemplateValue], template: String) -> [UInt8] {
        let value = TemplateValue.object(context)
        let bytes = theme.render(value, template: template)
        templateObserver?(value, template, bytes)
        return bytes
    }

    private func renderString(_ context: [String: TemplateValue], template: String) -> String {
        String(decoding: render(context, template: template), as: UTF8.self)
    }

    /// No page may load anything from another host, and nothing inline may run.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'"

    // MARK: Markdown

    private func html(_ markdown: Markdown) -> String {
        markdown.isEmpty ? "" : MarkdownRenderer.html(markdown, allowRawHTML: config.allowRawHTML)
    }

    /// Titles, summaries, labels, headings and requirements: inline Markdown, never raw HTML,
    /// whatever `allow-raw-html` says (it opens prose bodies only).
    private func inline(_ text: String) -> String {
        MarkdownRenderer.inlineHTML(PlainText.literalAngles(TerminalText.marked(text)), allowRawHTML: false)
    }

    private func plain(_ text: String) -> String {
        PlainText.of(text)
    }

    // MARK: Common context

    private func baseContext(lang: String, root: String, labels: Labels) -> [String: TemplateValue] {
        [
            "lang": .string(lang),
            "root": .string(root),
            "csp": .string(Self.contentSecurityPolicy),
            "labels": labels.value,
            "site": siteContext,
            "headExtra": .string(headExtra),
        ]
    }

    private var siteContext: TemplateValue {
        var site: [String: TemplateValue] = ["title": .string(config.title)]
        if let description = config.description { site["descriptionHTML"] = .string(inline(description)) }
        return .object(site)
    }

    // MARK: Flow page

    func flowPage(_ flow: Flow, translations: [TranslationLink]) -> String {
        String(decoding: flowPageBytes(flow, translations: translations), as: UTF8.self)
    }

    func flowPageBytes(_ flow: Flow, translations: [TranslationLink]) -> [UInt8] {
        let labels = theme.labels(for: flow.lang)
        var context = baseContext(lang: flow.lang, root: "../", labels: labels)
        let flowResult = results?.result(for: flow.id)
        var usedIDs: Set<String> = ["main", "actors", "sequence", "states", "steps", "token-rules", "toc"]
        for step in flow.steps { usedIDs.insert(step.anchor) }

        func sectionContext(_ section: ProseSection) -> [String: TemplateValue] {
            var item: [String: TemplateValue] = ["bodyHTML": .string(html(section.body))]
            let showHeading = !section.heading.isEmpty && !(section.level == 1 && plain(section.heading) == plain(flow.title))
            if showHeading {
                var id = "s-" + HTML.slug(plain(section.heading))
                var n = 2
                while usedIDs.contains(id) { id = "s-" + HTML.slug(plain(section.heading)) + "-\(n)"; n += 1 }
                usedIDs.insert(id)
                let level = min(max(section.level, 2), 4)
                item["heading"] = ["id": .string(id), "html": .string(inline(section.heading)), "text": .string(plain(section.heading)), "level": .string(String(level))]
                item["h\(level)"] = true
            } else {
                item["heading"] = false
            }
            return item
        }
        // The token-rules table sits inside the prose section that holds it in the source (its
        // heading and intro), so the page keeps the document's order and has one heading for it.
        var tokenRulesHost: Int?
        if let tokenLine = flow.tokenRulesLocation?.line, !flow.tokenRules.isEmpty {
            tokenRulesHost = flow.sections.indices.last { index in
                let line = flow.sections[index].body.location.line
                return !flow.sections[index].heading.isEmpty && line <= tokenLine
                    && !flow.steps.contains { $0.location.line > line && $0.location.line < tokenLine }
            }
        }
        var contexts = flow.sections.map(sectionContext)
        if let host = tokenRulesHost { contexts[host]["tokenRulesHere"] = true }
        let before = flow.sections.indices.filter { flow.sections[$0].placement == .beforeSteps }.map { contexts[$0] }
        let after = flow.sections.indices.filter { flow.sections[$0].placement == .afterSteps }.map { contexts[$0] }
        context["tokenRulesStandalone"] = .bool(tokenRulesHost == nil && !flow.tokenRules.isEmpty)

        // Header.
        var flowContext: [String: TemplateValue] = [
            "id": .string(flow.id),
            "titleHTML": .string(inline(flow.title)),
            "titleText": .string(plain(flow.title)),
            "lang": .string(flow.lang),
            "langName": .string(theme.languageName(flow.lang)),
            "file": .string(flow.file),
            "stepCount": .string(String(flow.steps.count)),
            "tags": .list(flow.tags.map { ["name": .string($0), "href": .string("../index.html?tag=" + percentEncode($0))] }),
            "hasTags": .bool(!flow.tags.isEmpty),
            "environments": .string(flow.environments.joined(separator: ", ")),
            "hasEnvironments": .bool(!flow.environments.isEmpty),
            "provider": .optional(flow.provider),
        ]
        if let summary = flow.summary, !summary.isEmpty { flowContext["summaryHTML"] = .string(inline(summary)) }
        context["flow"] = .object(flowContext)

        // Translations.
        let ordered = translations.sorted { languageRank($0.lang, $0.id) < languageRank($1.lang, $1.id) }
        context["hasTranslations"] = .bool(ordered.count > 1)
        context["translations"] = .list(ordered.map { link -> TemplateValue in
            [
                "href": .string(link.id + ".html"), "lang": .string(link.lang), "name": .string(theme.languageName(link.lang)),
                "title": .string(link.title), "current": .bool(link.id == flow.id),
            ]
        })

        // Actors.
        context["actors"] = .list(flow.actors.map { actor -> TemplateValue in
            ["id": .string(actor.id), "name": .string(actor.name), "role": .string(actor.role.rawValue), "roleLabel": .string(labels["role_" + actor.role.rawValue])]
        })

        // Diagrams.
        let failingSteps = Set(flowResult?.steps.filter { $0.verdict.status == .fail }.map(\.step) ?? [])
        context["sequenceSVG"] = .string(SequenceDiagram(flow: flow, labels: labels, failingSteps: failingSteps).figure())
        context["stateSVG"] = .string(StateDiagram(flow: flow, labels: labels).figure())

        // Steps.
        let machine = StateMachine(flow: flow)
        // Step titles by number, once: a page of 10 000 steps must not search the steps per link.
        let titles = Dictionary(flow.steps.map { ($0.number, $0.title) }, uniquingKeysWith: { first, _ in first })
        context["steps"] = .list(flow.steps.map { step in .object(stepContext(step, flow: flow, machine: machine, labels: labels, result: flowResult, titles: titles)) })

        // Token rules.
        context["hasTokenRules"] = .bool(!flow.tokenRules.isEmpty)
        var ruleAnchors: Set<String> = []
        context["tokenRules"] = .list(flow.tokenRules.map { rule -> TemplateValue in
            var anchor = "rule-" + HTML.slug(rule.id)
            while ruleAnchors.contains(anchor) { anchor += "-2" }
            ruleAnchors.insert(anchor)
            let cases = rule.cases(for: providers.resolvedProfile(for: flow), nonce: providers.nonceTransform(for: flow)).map { tokenCase -> TemplateValue in
                var item: [String: TemplateValue] = [
                    "id": .string(tokenCase.id), "title": .string(tokenCase.title),
                    "expectation": .string(tokenCase.expectation.rawValue),
                    "expectationLabel": .string(labels["expect_" + tokenCase.expectation.rawValue]),
                    "conformance": .optional(tokenCase.conformanceID),
                ]
                if let verdict = flowResult?.verdict(rule: rule.id, caseID: tokenCase.id) {
                    item["verdict"] = verdictContext(verdict, labels: labels)
                } else {
                    item["verdict"] = false
                }
                return .object(item)
            }
            let memoKey = flowResult == nil ? (rule.kind?.rawValue ?? "-") + "|" + cases.count.description + "|" + (flow.provider ?? "-") + "|" + providers.nonceTransform(for: flow).rawValue + "|" + labels.language : nil
            let casesHTML = memoKey.flatMap { memo.get($0) } ?? {
                var caseContext = baseContext(lang: flow.lang, root: "../", labels: labels)
                caseContext["cases"] = .list(cases)
                caseContext["hasCases"] = .bool(!cases.isEmpty)
                let html = renderString(caseContext, template: "token-cases")
                if let memoKey { memo.set(memoKey, html) }
                return html
            }()
            return [
                "casesHTML": .string(casesHTML),
                "id": .string(rule.id), "anchor": .string(anchor), "known": .bool(rule.kind != nil),
                "token": .string(rule.token),
                "step": rule.step.map { ["number": .string(String($0)), "href": .string("#step-\($0)")] } ?? false,
                "requirementHTML": .string(inline(rule.requirement)),
                "cases": .list(cases), "caseCount": .string(String(cases.count)), "hasCases": .bool(!cases.isEmpty),
            ]
        })

        context["sectionsBefore"] = .list(before.map(TemplateValue.object))
        context["sectionsAfter"] = .list(after.map(TemplateValue.object))
        context["results"] = flowResult.map { result -> TemplateValue in
            let verdicts = result.steps.map(\.verdict) + result.cases.map(\.verdict)
            return [
                "label": .optional(results?.label),
                "pass": .string(String(verdicts.filter { $0.status == .pass }.count)),
                "fail": .string(String(verdicts.filter { $0.status == .fail }.count)),
                "notExecutable": .string(String(verdicts.filter { $0.status == .notExecutable }.count)),
            ]
        } ?? false

        // Table of contents.
        var toc: [TemplateValue] = []
        func tocEntry(_ section: [String: TemplateValue]) {
            if case .object(let heading)? = section["heading"], case .string("2")? = heading["level"],
               case .string(let id)? = heading["id"], let text = heading["text"] {
                toc.append(["href": .string("#" + id), "text": text])
            }
        }
        before.forEach(tocEntry)
        toc.append(["href": "#actors", "text": .string(labels["actors"])])
        toc.append(["href": "#sequence", "text": .string(labels["sequence_diagram"])])
        toc.append(["href": "#states", "text": .string(labels["state_diagram"])])
        toc.append(["href": "#steps", "text": .string(labels["steps"]), "hasChildren": .bool(!flow.steps.isEmpty), "children": .list(flow.steps.map { step -> TemplateValue in
            ["href": .string("#" + step.anchor), "number": .string(String(step.number)), "text": .string(plain(step.title))]
        })])
        if tokenRulesHost == nil, !flow.tokenRules.isEmpty { toc.append(["href": "#token-rules", "text": .string(labels["token_rules"])]) }
        after.forEach(tocEntry)
        context["toc"] = .list(toc)
        return render(context, template: "flow")
    }

    private func stepContext(_ step: Step, flow: Flow, machine: StateMachine, labels: Labels, result: SiteResults.FlowResult?, titles: [Int: String]) -> [String: TemplateValue] {
        let from = flow.actor(step.from)
        let to = flow.actor(step.to)
        let kind = flow.kind(of: step)
        var item: [String: TemplateValue] = [
            "number": .string(String(step.number)),
            "anchor": .string(step.anchor),
            "titleHTML": .string(inline(step.title)),
            "titleText": .string(plain(step.title)),
            "fromName": .string(from?.name ?? step.from),
            "fromRole": .string(from?.role.rawValue ?? "unknown"),
            "toName": .string(to?.name ?? step.to),
            "toRole": .string(to?.role.rawValue ?? "unknown"),
            "hasActors": .bool(!step.from.isEmpty),
            "kind": .string(kind.rawValue),
            "kindLabel": .string(labels["kind_" + kind.rawValue]),
            "proseHTML": .string(html(step.prose)),
            "exchange": step.exchange.map { exchangeContext(request: $0.request, expectation: $0.expectation, flow: flow, labels: labels) } ?? false,
        ]
        if let verdict = result?.verdict(step: step.number) {
            item["verdict"] = verdictContext(verdict, labels: labels)
        } else {
            item["verdict"] = false
        }
        item["hasAlternates"] = .bool(!step.alternates.isEmpty)
        item["alternates"] = .list(step.alternates.map { alternate -> TemplateValue in
            var branch: [String: TemplateValue] = ["labelHTML": .string(inline(alternate.label))]
            branch.merge(targetContext(alternate.target, titles: titles, labels: labels)) { _, new in new }
            branch["noteHTML"] = .optional(alternate.note.map { html($0) })
            if alternate.request != nil || alternate.expectation != nil {
                let request = alternate.request ?? step.exchange?.request
                branch["branchExchange"] = exchangeContext(request: request, expectation: alternate.expectation ?? step.exchange?.expectation, flow: flow, labels: labels)
            } else {
                branch["branchExchange"] = false
            }
            return .object(branch)
        })
        if step.alternates.isEmpty, let next = machine.transitions(from: step.number).first {
            item["next"] = .object(targetContext(next.target, titles: titles, labels: labels))
        } else {
            item["next"] = false
        }
        return item
    }

    private func targetContext(_ target: Target, titles: [Int: String], labels: Labels) -> [String: TemplateValue] {
        switch target {
        case .step(let number):
            return [
                "targetStep": ["number": .string(String(number)), "href": .string("#step-\(number)"), "titleHTML": .string(inline(titles[number] ?? ""))],
                "targetEnd": false,
            ]
        case .end(let outcome):
            let kind = ["success", "failure", "cancelled"].contains(outcome.rawValue) ? outcome.rawValue : "other"
            return ["targetStep": false, "targetEnd": ["outcome": .string(outcome.rawValue), "kind": .string(kind)]]
        }
    }

    private func verdictContext(_ verdict: SiteResults.Verdict, labels: Labels) -> TemplateValue {
        [
            "status": .string(verdict.status.rawValue),
            "label": .string(labels["verdict_" + verdict.status.rawValue]),
            "evidence": .optional(verdict.evidence),
        ]
    }

    private func exchangeContext(request: RequestTemplate?, expectation: Expectation?, flow: Flow, labels: Labels) -> TemplateValue {
        var item: [String: TemplateValue] = [:]
        if let request {
            item["requestHTML"] = .string(requestHTML(request, flow: flow))
        } else {
            item["requestHTML"] = false
        }
        if let expectation {
            var rows: [TemplateValue] = []
            if let status = expectation.status {
                rows.append(["what": .string(labels["status"]), "subject": .string(status.description), "condition": ""])
            }
            for header in expectation.headers {
                rows.append(["what": .string(labels["header"]), "subject": .string(header.name), "condition": .string(matcherText(header.matcher, labels: labels))])
            }
            for assertion in expectation.json {
                rows.append(["what": "JSON", "subject": .string(assertion.path.description), "condition": .string(matcherText(assertion.matcher, labels: labels))])
            }
            for capture in expectation.captures {
                rows.append(["what": .string(labels["capture"]), "subject": .string("{{" + capture.name + "}}"), "condition": .string("← " + capture.source.description)])
            }
            item["expect"] = ["rows": .list(rows)]
        } else {
            item["expect"] = false
        }
        return .object(item)
    }

    private func matcherText(_ matcher: ValueMatcher, labels: Labels) -> String {
        switch matcher {
        case .equals(let value): return "= " + value.description
        case .type(let type): return labels["matcher_type"] + " " + type.rawValue
        case .exists(let present): return present ? labels["matcher_exists"] : labels["matcher_absent"]
        case .matches(let pattern): return labels["matcher_matches"] + " /" + pattern + "/"
        }
    }

    /// The request as readable, highlighted HTTP. Every piece of spec text is escaped.
    private func requestHTML(_ request: RequestTemplate, flow: Flow) -> String {
        var out = "<span class=\"http-method\">" + HTML.escape(request.method) + "</span> <span class=\"http-target\">" + placeholders(request.target, flow: flow) + "</span>"
        for header in request.headers {
            out += "\n<span class=\"http-header\">" + HTML.escape(header.name) + "</span>: " + placeholders(header.value, flow: flow)
        }
        if let body = request.body, !body.isEmpty {
            out += "\n\n" + placeholders(body, flow: flow)
        }
        return out
    }

    /// Escapes text and marks `{{name}}` placeholders, with what they stand for as a tooltip.
    private func placeholders(_ text: String, flow: Flow) -> String {
        let bytes = Array(text.utf8)
        func find(_ a: UInt8, from start: Int) -> Int? {
            var index = start
            while index + 1 < bytes.count {
                if bytes[index] == a, bytes[index + 1] == a { return index }
                index += 1
            }
            return nil
        }
        func piece(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var out = ""
        var position = 0
        while let open = find(0x7B, from: position) {
            out += HTML.escape(piece(position..<open))
            guard let close = find(0x7D, from: open + 2) else {
                position = open
                break
            }
            let name = piece((open + 2)..<close).trimmingCharacters()
            let meaning = flow.variables.first { $0.name == name }.map { "= " + $0.value }
                ?? VariableReference.providerValues[name]
            out += "<span class=\"ph\"" + (meaning.map { " title=\"" + HTML.escape($0) + "\"" } ?? "") + ">" + HTML.escape("{{" + name + "}}") + "</span>"
            position = close + 2
        }
        out += HTML.escape(piece(position..<bytes.count))
        return out
    }

    private func languageRank(_ lang: String, _ id: String) -> String {
        let index = config.languages.firstIndex(of: lang) ?? config.languages.count
        return String(format3(index)) + "|" + lang + "|" + id
    }

    private func format3(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 3 - s.count)) + s
    }

    // MARK: Index card, index, search

    /// One flow's entry on the index (cached per flow between builds).
    func card(_ flow: Flow) -> String {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        var card: [String: TemplateValue] = [
            "id": .string(flow.id), "href": .string("flows/" + flow.id + ".html"),
            "titleHTML": .string(inline(flow.title)), "lang": .string(flow.lang), "langName": .string(theme.languageName(flow.lang)),
            "stepCount": .string(String(flow.steps.count)),
            "tags": .list(flow.tags.map(TemplateValue.string)), "tagsJSON": .string(JSONText.array(flow.tags.map { JSONText.string(TerminalText.marked($0)) })),
            "hasTags": .bool(!flow.tags.isEmpty),
        ]
        if let summary = flow.summary, !summary.isEmpty { card["summaryHTML"] = .string(inline(summary)) }
        context["card"] = .object(card)
        return renderString(context, template: "card")
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
        return render(context, template: "index")
    }

    func searchPage(shards: Int) -> String {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["searchShards"] = .list((0..<shards).map { ["src": .string(SiteBuilder.searchShardPath($0))] })
        return renderString(context, template: "search")
    }

    /// The flow's entries in the search index, as a JSON array fragment (cached per flow):
    /// `[href, title, context, text, lang]` per entry.
    func searchEntries(_ flow: Flow) -> String {
        let base = "flows/" + flow.id + ".html"
        let flowTitle = plain(flow.title)
        var entries: [String] = []
        func entry(_ href: String, _ title: String, _ context: String, _ text: String) {
            // The search shows what the page shows: invisible characters as marks.
            entries.append("[" + [href, title, context, Self.clip(text), flow.lang].map { JSONText.string(TerminalText.marked($0)) }.joined(separator: ",") + "]")
        }
        entry(base, flowTitle, "", (flow.summary.map(plain) ?? "") + " " + flow.tags.joined(separator: " "))
        var usedIDs: Set<String> = ["main", "actors", "sequence", "states", "steps", "token-rules", "toc"]
        for step in flow.steps { usedIDs.insert(step.anchor) }
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
            guard !section.heading.isEmpty, !(section.level == 1 && plain(section.heading) == flowTitle) else { return }
            let text = plain(section.heading)
            var id = "s-" + HTML.slug(text)
            var n = 2
            while usedIDs.contains(id) { id = "s-" + HTML.slug(text) + "-\(n)"; n += 1 }
            usedIDs.insert(id)
            entry(base + "#" + id, text, flowTitle, MarkdownRenderer.plainText(section.body))
        }
        return entries.joined(separator: ",\n")
    }

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
                    out.append(contentsOf: bytes[index..<end])
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

    private func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}

