import FlowModel
import FlowParser

/// The anchors of a flow page's prose headings (`s-<slug>`, numbered when taken): the page and
/// its search entries name the same anchors.
struct SectionAnchors {
    private var used: Set<String>

    init(flow: Flow) {
        used = ["main", "actors", "sequence", "states", "steps", "token-rules", "toc"]
        for step in flow.steps { used.insert(step.anchor) }
    }

    /// A heading of the flow's own title at level 1 is the page title, not a section heading
    /// (`heading` and `flowTitle` plain).
    static func showsHeading(_ section: ProseSection, heading: String, flowTitle: String) -> Bool {
        !section.heading.isEmpty && !(section.level == 1 && heading == flowTitle)
    }

    mutating func anchor(for heading: String) -> String {
        var id = "s-" + HTML.slug(heading)
        var n = 2
        while used.contains(id) { id = "s-" + HTML.slug(heading) + "-\(n)"; n += 1 }
        used.insert(id)
        return id
    }
}

// A flow's page: header, translations, actors, diagrams, steps, token rules, results, contents.
extension PageRenderer {
    func flowPage(_ flow: Flow, translations: [TranslationLink]) -> String {
        String(decoding: flowPageBytes(flow, translations: translations), as: UTF8.self)
    }

    func flowPageBytes(_ flow: Flow, translations: [TranslationLink]) -> [UInt8] {
        flowPage(flow, translations: translations) { Array($0) }
    }

    /// The page, lent to `body` where it was written (a build writes it to its file from there).
    /// `titles`: the flow's plain titles when the caller has made them (a build does, for the
    /// search entries too).
    func flowPage<Result>(
        _ flow: Flow, translations: [TranslationLink], titles: PlainTitles? = nil, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let labels = theme.labels(for: flow.lang)
        var context = baseContext(lang: flow.lang, root: "../", labels: labels)
        let flowResult = results?.result(for: flow.id)
        let titles = titles ?? PlainTitles(flow)
        let sections = proseSections(flow, titles)
        context["tokenRulesStandalone"] = .bool(sections.tokenRulesHost == nil && !flow.tokenRules.isEmpty)
        context["sectionsBefore"] = .list(sections.before.map(TemplateValue.object))
        context["sectionsAfter"] = .list(sections.after.map(TemplateValue.object))
        context["flow"] = headerContext(flow, titles: titles)
        context.merge(translationsContext(flow, translations))
        context["actors"] = .list(flow.actors.map { actor -> TemplateValue in
            ["id": .string(actor.id), "name": .string(actor.name), "role": .string(actor.role.rawValue), "roleLabel": .string(labels["role_" + actor.role.rawValue])]
        })

        let failingSteps = Set(flowResult?.steps.filter { $0.verdict.status == .fail }.map(\.step) ?? [])
        context["sequenceSVG"] = .bytes(SequenceDiagram(flow: flow, labels: labels, failingSteps: failingSteps, titles: titles).figure())
        // One state machine for the page: the state diagram and the steps' branches.
        let machine = StateMachine(flow: flow)
        context["stateSVG"] = .bytes(StateDiagram(flow: flow, labels: labels, machine: machine, titles: titles).figure())

        // Each step's title as inline HTML, made once: its heading, and the branches and "next"
        // links that lead to it.
        let titlesHTML = flow.steps.map { inline($0.title) }
        context["steps"] = .list(flow.steps.indices.map { index in
            var item = stepContext(flow.steps[index], at: index, flow: flow, machine: machine, labels: labels, result: flowResult, titles: titles, titlesHTML: titlesHTML)
            // Previous and next in reading order (the branches say where the flow goes).
            func neighbour(_ at: Int) -> TemplateValue {
                guard flow.steps.indices.contains(at) else { return false }
                return ["href": .string("#" + flow.steps[at].anchor), "number": .string(String(flow.steps[at].number))]
            }
            item["previous"] = neighbour(index - 1)
            item["following"] = neighbour(index + 1)
            return .object(item)
        })

        context["hasTokenRules"] = .bool(!flow.tokenRules.isEmpty)
        context["tokenRules"] = .list(tokenRulesContext(flow, labels: labels, result: flowResult))
        context["results"] = resultsSummary(flowResult, labels: labels)
        context["toc"] = .list(tableOfContents(flow, sections, labels: labels, result: flowResult, titles: titles))
        return try render(context, template: "flow", body)
    }

    /// The prose sections before and after the steps, and the one that hosts the token rules.
    struct ProseContexts {
        var before: [TemplateFields]
        var after: [TemplateFields]
        var tokenRulesHost: Int?
    }

    func proseSections(_ flow: Flow, _ titles: PlainTitles) -> ProseContexts {
        var anchors = SectionAnchors(flow: flow)
        func sectionContext(_ index: Int) -> TemplateFields {
            let section = flow.sections[index]
            var item: TemplateFields = ["bodyHTML": .bytes(htmlBytes(section.body))]
            let heading = titles.headings[index]
            if SectionAnchors.showsHeading(section, heading: heading, flowTitle: titles.flow) {
                let id = anchors.anchor(for: heading)
                let level = min(max(section.level, 2), 4)
                item["heading"] = ["id": .string(id), "html": .string(inline(section.heading)), "text": .string(heading), "level": .string(String(level))]
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
        var contexts = flow.sections.indices.map(sectionContext)
        if let host = tokenRulesHost { contexts[host]["tokenRulesHere"] = true }
        return ProseContexts(
            before: flow.sections.indices.filter { flow.sections[$0].placement == .beforeSteps }.map { contexts[$0] },
            after: flow.sections.indices.filter { flow.sections[$0].placement == .afterSteps }.map { contexts[$0] },
            tokenRulesHost: tokenRulesHost
        )
    }

    func headerContext(_ flow: Flow, titles: PlainTitles) -> TemplateValue {
        var flowContext: TemplateFields = [
            "id": .string(flow.id),
            "titleHTML": .string(inline(flow.title)),
            "titleText": .string(titles.flow),
            "lang": .string(flow.lang),
            "langName": .string(theme.languageName(flow.lang)),
            "file": .string(flow.file),
            "stepCount": .string(String(flow.steps.count)),
            "tags": .list(flow.tags.map { ["name": .string($0), "href": .string("../index.html?tag=" + Self.percentEncode($0))] }),
            "hasTags": .bool(!flow.tags.isEmpty),
            "environments": .string(flow.environments.joined(separator: ", ")),
            "hasEnvironments": .bool(!flow.environments.isEmpty),
            "provider": .optional(flow.provider),
        ]
        if let summary = flow.summary, !summary.isEmpty { flowContext["summaryHTML"] = .string(inline(summary)) }
        if let editURL = config.editURL {
            flowContext["editHref"] = .string(editURL.replacingAll("{path}", with: Self.percentEncode(flow.file)))
        }
        return .object(flowContext)
    }

    /// The language switcher: the flow's translations in the configured language order.
    func translationsContext(_ flow: Flow, _ translations: [TranslationLink]) -> TemplateFields {
        let ordered = translations.sorted { languageRank($0.lang, $0.id) < languageRank($1.lang, $1.id) }
        return [
            "hasTranslations": .bool(ordered.count > 1),
            "translations": .list(ordered.map { link -> TemplateValue in
                [
                    "href": .string(link.id + ".html"), "lang": .string(link.lang), "name": .string(theme.languageName(link.lang)),
                    "title": .string(link.title), "current": .bool(link.id == flow.id),
                ]
            }),
        ]
    }

    func languageRank(_ lang: String, _ id: String) -> String {
        let index = config.languages.firstIndex(of: lang) ?? config.languages.count
        let digits = String(index)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "|" + lang + "|" + id
    }

    /// "On this page": level-2 prose headings around the fixed sections and the steps.
    func tableOfContents(_ flow: Flow, _ sections: ProseContexts, labels: Labels, result: SiteResults.FlowResult?, titles: PlainTitles) -> [TemplateValue] {
        var toc: [TemplateValue] = []
        func tocEntry(_ section: TemplateFields) {
            if case .object(let heading)? = section["heading"], case .string("2")? = heading["level"],
               case .string(let id)? = heading["id"], let text = heading["text"] {
                toc.append(["href": .string("#" + id), "text": text])
            }
        }
        sections.before.forEach(tocEntry)
        toc.append(["href": "#actors", "text": .string(labels["actors"])])
        toc.append(["href": "#sequence", "text": .string(labels["sequence_diagram"])])
        toc.append(["href": "#states", "text": .string(labels["state_diagram"])])
        toc.append(["href": "#steps", "text": .string(labels["steps"]), "hasChildren": .bool(!flow.steps.isEmpty), "children": .list(flow.steps.indices.map { index -> TemplateValue in
            let step = flow.steps[index]
            return [
                "href": .string("#" + step.anchor), "number": .string(String(step.number)), "text": .string(titles.steps[index]),
                "verdict": result?.verdict(step: step.number).map { verdictContext($0, labels: labels) } ?? false,
            ]
        })])
        if sections.tokenRulesHost == nil, !flow.tokenRules.isEmpty { toc.append(["href": "#token-rules", "text": .string(labels["token_rules"])]) }
        sections.after.forEach(tocEntry)
        return toc
    }
}
