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
struct PageRenderer: @unchecked Sendable {
    // @unchecked: Theme holds MustacheLibrary (Sendable) and plain values; `results` is a value.
    let theme: Theme
    let config: SiteConfig
    let results: SiteResults?
    /// Extra markup for `<head>` (the reload script in `serve`); empty for `build`.
    let headExtra: String
    /// Rendered token-case lists, shared by every page of a language (they depend only on the
    /// rule family and the labels when there are no results).
    let memo = Memo()

    /// No page may load anything from another host, and nothing inline may run.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'"

    // MARK: Markdown

    private func html(_ markdown: Markdown) -> String {
        markdown.isEmpty ? "" : MarkdownRenderer.html(markdown, allowRawHTML: config.allowRawHTML)
    }

    private func inline(_ text: String) -> String {
        MarkdownRenderer.inlineHTML(config.allowRawHTML ? text : PlainText.literalAngles(text), allowRawHTML: config.allowRawHTML)
    }

    private func plain(_ text: String) -> String {
        PlainText.of(text)
    }

    // MARK: Common context

    private func baseContext(lang: String, root: String, labels: Labels) -> [String: Any] {
        [
            "lang": lang,
            "root": root,
            "csp": Self.contentSecurityPolicy,
            "labels": labels.table,
            "site": siteContext,
            "headExtra": headExtra,
        ]
    }

    private var siteContext: [String: Any] {
        var site: [String: Any] = ["title": config.title]
        if let description = config.description { site["descriptionHTML"] = inline(description) }
        return site
    }

    // MARK: Flow page

    func flowPage(_ flow: Flow, translations: [TranslationLink]) -> String {
        let labels = theme.labels(for: flow.lang)
        var context = baseContext(lang: flow.lang, root: "../", labels: labels)
        let flowResult = results?.result(for: flow.id)
        var usedIDs: Set<String> = ["main", "actors", "sequence", "states", "steps", "token-rules", "toc"]
        for step in flow.steps { usedIDs.insert(step.anchor) }

        func sectionContext(_ section: ProseSection) -> [String: Any] {
            var item: [String: Any] = ["bodyHTML": html(section.body)]
            let showHeading = !section.heading.isEmpty && !(section.level == 1 && plain(section.heading) == plain(flow.title))
            if showHeading {
                var id = "s-" + HTML.slug(plain(section.heading))
                var n = 2
                while usedIDs.contains(id) { id = "s-" + HTML.slug(plain(section.heading)) + "-\(n)"; n += 1 }
                usedIDs.insert(id)
                let level = min(max(section.level, 2), 4)
                item["heading"] = ["id": id, "html": inline(section.heading), "text": plain(section.heading), "level": String(level)] as [String: Any]
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
        context["tokenRulesStandalone"] = tokenRulesHost == nil && !flow.tokenRules.isEmpty

        // Header.
        var flowContext: [String: Any] = [
            "id": flow.id,
            "titleHTML": inline(flow.title),
            "titleText": plain(flow.title),
            "lang": flow.lang,
            "langName": theme.languageName(flow.lang),
            "file": flow.file,
            "stepCount": String(flow.steps.count),
            "tags": flow.tags.map { ["name": $0, "href": "../index.html?tag=" + percentEncode($0)] },
            "hasTags": !flow.tags.isEmpty,
            "environments": flow.environments.joined(separator: ", "),
            "hasEnvironments": !flow.environments.isEmpty,
            "provider": flow.provider.map { $0 as Any } ?? false,
        ]
        if let summary = flow.summary, !summary.isEmpty { flowContext["summaryHTML"] = inline(summary) }
        context["flow"] = flowContext

        // Translations.
        let ordered = translations.sorted { languageRank($0.lang, $0.id) < languageRank($1.lang, $1.id) }
        context["hasTranslations"] = ordered.count > 1
        context["translations"] = ordered.map { link -> [String: Any] in
            [
                "href": link.id + ".html", "lang": link.lang, "name": theme.languageName(link.lang),
                "title": link.title, "current": link.id == flow.id,
            ]
        }

        // Actors.
        context["actors"] = flow.actors.map { actor -> [String: Any] in
            ["id": actor.id, "name": actor.name, "role": actor.role.rawValue, "roleLabel": labels["role_" + actor.role.rawValue]]
        }

        // Diagrams.
        context["sequenceSVG"] = SequenceDiagram(flow: flow, labels: labels).render()
        context["stateSVG"] = StateDiagram(flow: flow, labels: labels).render()

        // Steps.
        let machine = StateMachine(flow: flow)
        context["steps"] = flow.steps.map { step in stepContext(step, flow: flow, machine: machine, labels: labels, result: flowResult) }

        // Token rules.
        context["hasTokenRules"] = !flow.tokenRules.isEmpty
        var ruleAnchors: Set<String> = []
        context["tokenRules"] = flow.tokenRules.map { rule -> [String: Any] in
            var anchor = "rule-" + HTML.slug(rule.id)
            while ruleAnchors.contains(anchor) { anchor += "-2" }
            ruleAnchors.insert(anchor)
            let cases = rule.cases.map { tokenCase -> [String: Any] in
                var item: [String: Any] = [
                    "id": tokenCase.id, "title": tokenCase.title,
                    "expectation": tokenCase.expectation.rawValue,
                    "expectationLabel": labels["expect_" + tokenCase.expectation.rawValue],
                    "conformance": tokenCase.conformanceID ?? false,
                ]
                if let verdict = flowResult?.verdict(rule: rule.id, caseID: tokenCase.id) {
                    item["verdict"] = verdictContext(verdict, labels: labels)
                } else {
                    item["verdict"] = false
                }
                return item
            }
            let memoKey = flowResult == nil ? (rule.kind?.rawValue ?? "-") + "|" + labels.language : nil
            let casesHTML = memoKey.flatMap { memo.get($0) } ?? {
                var caseContext = baseContext(lang: flow.lang, root: "../", labels: labels)
                caseContext["cases"] = cases
                caseContext["hasCases"] = !cases.isEmpty
                let html = theme.render(caseContext, template: "token-cases")
                if let memoKey { memo.set(memoKey, html) }
                return html
            }()
            return [
                "casesHTML": casesHTML,
                "id": rule.id, "anchor": anchor, "known": rule.kind != nil,
                "token": rule.token,
                "step": rule.step.map { ["number": String($0), "href": "#step-\($0)"] as [String: Any] } ?? false,
                "requirementHTML": inline(rule.requirement),
                "cases": cases, "caseCount": String(cases.count), "hasCases": !cases.isEmpty,
            ]
        }

        context["sectionsBefore"] = before
        context["sectionsAfter"] = after
        context["results"] = flowResult.map { result -> [String: Any] in
            let verdicts = result.steps.map(\.verdict) + result.cases.map(\.verdict)
            return [
                "label": results?.label ?? false,
                "pass": String(verdicts.filter { $0.status == .pass }.count),
                "fail": String(verdicts.filter { $0.status == .fail }.count),
                "notExecutable": String(verdicts.filter { $0.status == .notExecutable }.count),
            ]
        } ?? false

        // Table of contents.
        var toc: [[String: Any]] = []
        for section in before {
            if let heading = section["heading"] as? [String: Any], heading["level"] as? String == "2" {
                toc.append(["href": "#" + (heading["id"] as! String), "text": heading["text"]!])
            }
        }
        toc.append(["href": "#actors", "text": labels["actors"]])
        toc.append(["href": "#sequence", "text": labels["sequence_diagram"]])
        toc.append(["href": "#states", "text": labels["state_diagram"]])
        toc.append(["href": "#steps", "text": labels["steps"], "hasChildren": !flow.steps.isEmpty, "children": flow.steps.map { step -> [String: Any] in
            ["href": "#" + step.anchor, "number": String(step.number), "text": plain(step.title)]
        }])
        if tokenRulesHost == nil, !flow.tokenRules.isEmpty { toc.append(["href": "#token-rules", "text": labels["token_rules"]]) }
        for section in after {
            if let heading = section["heading"] as? [String: Any], heading["level"] as? String == "2" {
                toc.append(["href": "#" + (heading["id"] as! String), "text": heading["text"]!])
            }
        }
        context["toc"] = toc
        return theme.render(context, template: "flow")
    }

    private func stepContext(_ step: Step, flow: Flow, machine: StateMachine, labels: Labels, result: SiteResults.FlowResult?) -> [String: Any] {
        let from = flow.actor(step.from)
        let to = flow.actor(step.to)
        let kind = flow.kind(of: step)
        var item: [String: Any] = [
            "number": String(step.number),
            "anchor": step.anchor,
            "titleHTML": inline(step.title),
            "titleText": plain(step.title),
            "fromName": from?.name ?? step.from,
            "fromRole": from?.role.rawValue ?? "unknown",
            "toName": to?.name ?? step.to,
            "toRole": to?.role.rawValue ?? "unknown",
            "hasActors": !step.from.isEmpty,
            "kind": kind.rawValue,
            "kindLabel": labels["kind_" + kind.rawValue],
            "proseHTML": html(step.prose),
            "exchange": step.exchange.map { exchangeContext(request: $0.request, expectation: $0.expectation, flow: flow, labels: labels) } ?? false,
        ]
        if let verdict = result?.verdict(step: step.number) {
            item["verdict"] = verdictContext(verdict, labels: labels)
        } else {
            item["verdict"] = false
        }
        item["hasAlternates"] = !step.alternates.isEmpty
        item["alternates"] = step.alternates.map { alternate -> [String: Any] in
            var branch: [String: Any] = ["labelHTML": inline(alternate.label)]
            branch.merge(targetContext(alternate.target, flow: flow, labels: labels)) { _, new in new }
            branch["noteHTML"] = alternate.note.map { html($0) } ?? false
            if alternate.request != nil || alternate.expectation != nil {
                let request = alternate.request ?? step.exchange?.request
                branch["branchExchange"] = exchangeContext(request: request, expectation: alternate.expectation ?? step.exchange?.expectation, flow: flow, labels: labels)
            } else {
                branch["branchExchange"] = false
            }
            return branch
        }
        if step.alternates.isEmpty, let next = machine.transitions(from: step.number).first {
            item["next"] = targetContext(next.target, flow: flow, labels: labels)
        } else {
            item["next"] = false
        }
        return item
    }

    private func targetContext(_ target: Target, flow: Flow, labels: Labels) -> [String: Any] {
        switch target {
        case .step(let number):
            return [
                "targetStep": ["number": String(number), "href": "#step-\(number)", "titleHTML": inline(flow.step(number)?.title ?? "")] as [String: Any],
                "targetEnd": false,
            ]
        case .end(let outcome):
            let kind = ["success", "failure", "cancelled"].contains(outcome.rawValue) ? outcome.rawValue : "other"
            return ["targetStep": false, "targetEnd": ["outcome": outcome.rawValue, "kind": kind] as [String: Any]]
        }
    }

    private func verdictContext(_ verdict: SiteResults.Verdict, labels: Labels) -> [String: Any] {
        [
            "status": verdict.status.rawValue,
            "label": labels["verdict_" + verdict.status.rawValue],
            "evidence": verdict.evidence ?? false,
        ]
    }

    private func exchangeContext(request: RequestTemplate?, expectation: Expectation?, flow: Flow, labels: Labels) -> [String: Any] {
        var item: [String: Any] = [:]
        if let request {
            item["requestHTML"] = requestHTML(request, flow: flow)
        } else {
            item["requestHTML"] = false
        }
        if let expectation {
            var rows: [[String: Any]] = []
            if let status = expectation.status {
                rows.append(["what": labels["status"], "subject": status.description, "condition": ""])
            }
            for header in expectation.headers {
                rows.append(["what": labels["header"], "subject": header.name, "condition": matcherText(header.matcher, labels: labels)])
            }
            for assertion in expectation.json {
                rows.append(["what": "JSON", "subject": assertion.path.description, "condition": matcherText(assertion.matcher, labels: labels)])
            }
            for capture in expectation.captures {
                rows.append(["what": labels["capture"], "subject": "{{" + capture.name + "}}", "condition": "← " + capture.source.description])
            }
            item["expect"] = ["rows": rows]
        } else {
            item["expect"] = false
        }
        return item
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
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            out += HTML.escape(String(rest[..<open.lowerBound]))
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters()
            let meaning = flow.variables.first { $0.name == name }.map { "= " + $0.value }
                ?? VariableReference.providerValues[name]
            out += "<span class=\"ph\"" + (meaning.map { " title=\"" + HTML.escape($0) + "\"" } ?? "") + ">" + HTML.escape("{{" + name + "}}") + "</span>"
            rest = rest[close.upperBound...]
        }
        out += HTML.escape(String(rest))
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
        var card: [String: Any] = [
            "id": flow.id, "href": "flows/" + flow.id + ".html",
            "titleHTML": inline(flow.title), "lang": flow.lang, "langName": theme.languageName(flow.lang),
            "stepCount": String(flow.steps.count),
            "tags": flow.tags, "tagsJSON": JSONText.array(flow.tags.map(JSONText.string)),
            "hasTags": !flow.tags.isEmpty,
        ]
        if let summary = flow.summary, !summary.isEmpty { card["summaryHTML"] = inline(summary) }
        context["card"] = card
        return theme.render(context, template: "card")
    }

    struct TagCount {
        var name: String
        var count: Int
    }

    func indexPage(cardsHTML: String, tags: [TagCount], flowCount: Int) -> String {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["cardsHTML"] = cardsHTML
        context["tags"] = tags.map { ["name": $0.name, "count": String($0.count), "href": "index.html?tag=" + percentEncode($0.name)] }
        context["hasTags"] = !tags.isEmpty
        context["flowCount"] = String(flowCount)
        return theme.render(context, template: "index")
    }

    func searchPage(shards: Int) -> String {
        let labels = theme.labels(for: config.language)
        var context = baseContext(lang: config.language, root: "", labels: labels)
        context["searchShards"] = (0..<shards).map { ["src": SiteBuilder.searchShardPath($0)] }
        return theme.render(context, template: "search")
    }

    /// The flow's entries in the search index, as a JSON array fragment (cached per flow):
    /// `[href, title, context, text, lang]` per entry.
    func searchEntries(_ flow: Flow) -> String {
        let base = "flows/" + flow.id + ".html"
        let flowTitle = plain(flow.title)
        var entries: [String] = []
        func entry(_ href: String, _ title: String, _ context: String, _ text: String) {
            entries.append("[" + [href, title, context, Self.clip(text), flow.lang].map(JSONText.string).joined(separator: ",") + "]")
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

    static func clip(_ text: String, limit: Int = 240) -> String {
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

extension StringProtocol {
    func trimmingCharacters() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
