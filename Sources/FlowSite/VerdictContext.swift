import FlowModel

// How check results read on a page: a verdict's chip (colour and icon), its words in the page's
// language, the evidence linked to the case or step that showed it, the counts of the report and
// where the results come from.
extension PageRenderer {
    func verdictContext(_ verdict: SiteResults.Verdict, labels: Labels) -> TemplateValue {
        var label = labels["verdict_" + verdict.status.rawValue]
        if verdict.status == .notReached, let step = verdict.blockedAt {
            label = labels["blocked_at"].replacingAll("{n}", with: String(step))
        }
        return [
            "status": .string(verdict.status.rawValue),
            "icon": .string(verdict.status.icon),
            "label": .string(label),
            "evidence": .optional(Self.evidence(verdict, labels: labels)),
            "blockedHref": verdict.blockedAt.map { .string("#step-\($0)") } ?? false,
            "source": verdict.item.map { sourceContext($0, labels: labels) } ?? false,
        ]
    }

    /// The evidence sentence in the page's language: the label `message_<key>` filled with the
    /// values quoted from the run (escaped with the rest when the template writes it), or the
    /// report's English text when the key has no label in this language.
    static func evidence(_ verdict: SiteResults.Verdict, labels: Labels) -> String? {
        guard let key = verdict.evidenceKey else { return verdict.evidence }
        return VerdictMessage.render(key: key, args: verdict.evidenceArgs ?? [:]) { labels.table["message_" + $0] } ?? verdict.evidence
    }

    /// "shown by nonce/C12" linking to the case (or to the step a scenario failed at).
    private func sourceContext(_ item: SiteResults.ItemRef, labels: Labels) -> TemplateValue {
        let name = item.id.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) ?? item.id
        var href: String?
        if let rule = item.rule, let caseID = item.caseID {
            href = "#" + Self.caseAnchor(rule: rule, caseID: caseID)
        } else if let step = item.step {
            href = "#step-\(step)"
        }
        return ["text": .string(name), "href": .optional(href), "label": .string(labels["shown_by"])]
    }

    /// The anchor of a token case's line in its rule's case list.
    static func caseAnchor(rule: String, caseID: String) -> String {
        "case-" + HTML.slug(rule) + "-" + HTML.slug(caseID)
    }

    /// The report's counts for a flow (or all flows), in the page's language, with where the
    /// results come from.
    func resultsSummary(_ flowResult: SiteResults.FlowResult?, labels: Labels) -> TemplateValue {
        guard let flowResult else { return false }
        var summary: TemplateFields = [
            "label": .optional(results?.label),
            "counts": flowResult.summary.map { countsContext($0, labels: labels) } ?? false,
            "status": statusContext(flowResult.summary, labels: labels),
        ]
        if let provenance = results?.provenance {
            summary["provenance"] = [
                "startedAt": .optional(provenance.startedAt), "backend": .optional(provenance.backend),
                "version": .optional(provenance.toolVersion),
            ]
        } else {
            summary["provenance"] = false
        }
        return .object(summary)
    }

    /// Every count of the report's summary, zeros included, so the page can be compared with it.
    func countsContext(_ counts: SiteResults.Counts, labels: Labels) -> TemplateValue {
        let items: [(String, String, Int)] = [
            ("pass", labels["verdict_pass"], counts.pass),
            ("fail", labels["verdict_fail"], counts.fail),
            ("error", labels["counts_error"], counts.error),
            ("inconclusive", labels["verdict_inconclusive"], counts.inconclusive),
            ("not-executable", labels["verdict_not-executable"], counts.notExecutable),
            ("info", labels["verdict_info"], counts.info),
        ]
        return [
            "total": .string(String(counts.total)),
            "items": .list(items.map { key, label, n in ["key": .string(key), "label": .string(label), "n": .string(String(n))] }),
        ]
    }

    /// One line for a flow: all passed, some failing, or not checked.
    func statusContext(_ counts: SiteResults.Counts?, labels: Labels) -> TemplateValue {
        guard let counts else { return false }
        if counts.failing > 0 {
            let text = labels["status_failing"].replacingAll("{n}", with: String(counts.failing))
                .replacingAll("{total}", with: String(counts.total))
            return ["kind": "fail", "icon": .string(SiteResults.Status.fail.icon), "text": .string(text)]
        }
        if counts.pass == 0 {
            return ["kind": "none", "icon": .string(SiteResults.Status.notExecutable.icon), "text": .string(labels["status_not_checked"])]
        }
        let text = labels["status_all_passed"].replacingAll("{n}", with: String(counts.pass))
        return ["kind": "pass", "icon": .string(SiteResults.Status.pass.icon), "text": .string(text)]
    }
}
