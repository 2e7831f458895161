import FlowModel
import FlowParser

// A flow page's token rules (each with its cases, rendered once per language when there are no
// results) and the results summary.
extension PageRenderer {
    func tokenRulesContext(_ flow: Flow, labels: Labels, result flowResult: SiteResults.FlowResult?) -> [TemplateValue] {
        var ruleAnchors: Set<String> = []
        // The flow's provider, its variables filled in, once per page rather than once per rule.
        let profile = flow.tokenRules.isEmpty ? nil : providers.resolvedProfile(for: flow)
        let nonce = providers.nonceTransform(for: flow)
        let pageKey = flowResult == nil ? "|" + (flow.provider ?? "-") + "|" + nonce.rawValue + "|" + labels.language : ""
        return flow.tokenRules.map { rule -> TemplateValue in
            var anchor = "rule-" + HTML.slug(rule.id)
            while ruleAnchors.contains(anchor) { anchor += "-2" }
            ruleAnchors.insert(anchor)
            let tokenCases = rule.cases(for: profile, nonce: nonce)
            // Without results the case list is the same on every page of a language: once it is
            // rendered, the cases' contexts are made again only for a theme's own templates.
            let memoKey = flowResult == nil ? Self.casesMemoKey(rule, count: tokenCases.count, pageKey: pageKey) : nil
            let shared = memoKey.flatMap { theme.overridesTemplates ? nil : memo.get($0) }
            let cases = shared != nil ? [] : tokenCases.map { tokenCase -> TemplateValue in
                var item: TemplateFields = [
                    "id": .string(tokenCase.id), "title": .string(Self.caseTitle(tokenCase, labels: labels)),
                    "anchor": .string(Self.caseAnchor(rule: rule.id, caseID: tokenCase.id)),
                    "expectation": .string(tokenCase.expectation.rawValue),
                    "expectationLabel": .string(labels["expect_" + tokenCase.expectation.rawValue]),
                    "conformance": .optional(tokenCase.conformanceID),
                ]
                if let verdict = flowResult?.verdict(rule: rule.id, caseID: tokenCase.id) {
                    item["verdict"] = verdictContext(verdict, labels: labels)
                } else {
                    item["verdict"] = false
                }
                item["noVerdictLabel"] = .string(labels[flowResult == nil ? "status_not_checked" : "verdict_none"])
                return .object(item)
            }
            return [
                "casesHTML": .string(shared ?? casesHTML(cases, flow: flow, labels: labels, memoKey: memoKey)),
                "id": .string(rule.id), "anchor": .string(anchor), "known": .bool(rule.kind != nil),
                "token": .string(rule.token),
                "step": rule.step.map { ["number": .string(String($0)), "href": .string("#step-\($0)")] } ?? false,
                "requirementHTML": .string(inline(rule.requirement)),
                "cases": .list(cases), "caseCount": .string(String(tokenCases.count)), "hasCases": .bool(!tokenCases.isEmpty),
            ]
        }
    }

    /// A case's title in the page's language: the label `case_<id>`, or the catalogue's English.
    static func caseTitle(_ tokenCase: TokenCase, labels: Labels) -> String {
        labels.table["case_" + tokenCase.id] ?? tokenCase.title
    }

    /// What a rule's case list depends on when there are no results: the rule family, the case
    /// count, and the page's `|provider|nonce transform|language` (`pageKey`, made once a page).
    /// Appended to one String (a chain of `+` cost 6 900 instructions a rule).
    private static func casesMemoKey(_ rule: TokenRule, count: Int, pageKey: String) -> String {
        var key = rule.id
        key.reserveCapacity(rule.id.utf8.count + pageKey.utf8.count + 32)
        key += "|"
        key += rule.kind?.rawValue ?? "-"
        key += "|"
        key += String(count)
        key += pageKey
        return key
    }

    /// The case list of a rule, rendered; kept under `memoKey` (no results) and shared.
    private func casesHTML(_ cases: [TemplateValue], flow: Flow, labels: Labels, memoKey: String?) -> String {
        if let memoKey, let cached = memo.get(memoKey) { return cached }
        var caseContext = baseContext(lang: flow.lang, root: "../", labels: labels)
        caseContext["cases"] = .list(cases)
        caseContext["hasCases"] = .bool(!cases.isEmpty)
        let html = renderString(caseContext, template: "token-cases")
        if let memoKey { memo.set(memoKey, html) }
        return html
    }
}
