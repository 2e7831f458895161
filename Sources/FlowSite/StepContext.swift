import FlowModel
import FlowParser
import Foundation

// A flow page's steps: actors, exchange (request and expectation), branches, verdicts.

extension PageRenderer {
    /// The context of `step`, the flow's step at `position`; `titlesHTML` holds the steps' titles
    /// as inline HTML, in step order.
    func stepContext(
        _ step: Step, at position: Int, flow: Flow, machine: StateMachine, labels: Labels, result: SiteResults.FlowResult?, titles: PlainTitles,
        titlesHTML: [String]
    ) -> TemplateFields {
        let from = flow.actor(step.from)
        let to = flow.actor(step.to)
        let kind = flow.kind(of: step)
        var item: TemplateFields = [
            "number": .string(String(step.number)),
            "anchor": .string(step.anchor),
            "titleHTML": .string(titlesHTML[position]),
            "titleText": .string(titles.steps[position]),
            "fromName": .string(from?.name ?? step.from),
            "fromRole": .string(from?.role.rawValue ?? "unknown"),
            "toName": .string(to?.name ?? step.to),
            "toRole": .string(to?.role.rawValue ?? "unknown"),
            "hasActors": .bool(!step.from.isEmpty),
            "kind": .string(kind.rawValue),
            "kindLabel": .string(labels["kind_" + kind.rawValue]),
            "proseHTML": .bytes(htmlBytes(step.prose)),
            "exchange": step.exchange.map { exchangeContext(request: $0.request, expectation: $0.expectation, flow: flow, labels: labels) } ?? false,
        ]
        if let verdict = result?.verdict(step: step.number) {
            item["verdict"] = verdictContext(verdict, labels: labels)
            item["noVerdict"] = false
        } else {
            item["verdict"] = false
            item["noVerdict"] = result == nil ? false : ["label": .string(labels["verdict_none"]), "icon": .string(SiteResults.Status.notExecutable.icon)]
        }
        item["hasAlternates"] = .bool(!step.alternates.isEmpty)
        item["alternates"] = .list(step.alternates.map { alternate -> TemplateValue in
            var branch: TemplateFields = ["labelHTML": .string(inline(alternate.label))]
            branch.merge(targetContext(alternate.target, titles: titles, titlesHTML: titlesHTML, labels: labels))
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
            item["next"] = .object(targetContext(next.target, titles: titles, titlesHTML: titlesHTML, labels: labels))
        } else {
            item["next"] = false
        }
        return item
    }

    func targetContext(_ target: Target, titles: PlainTitles, titlesHTML: [String], labels: Labels) -> TemplateFields {
        switch target {
        case .step(let number):
            return [
                "targetStep": ["number": .string(String(number)), "href": .string("#step-\(number)"), "titleHTML": .string(titles.position(of: number).map { titlesHTML[$0] } ?? inline(""))],
                "targetEnd": false,
            ]
        case .end(let outcome):
            let kind = outcome == .success || outcome == .failure || outcome == .cancelled ? outcome.rawValue : "other"
            let label = labels.table["outcome_" + outcome.rawValue] ?? outcome.rawValue
            return ["targetStep": false, "targetEnd": ["outcome": .string(outcome.rawValue), "outcomeLabel": .string(label), "kind": .string(kind)]]
        }
    }

    func exchangeContext(request: RequestTemplate?, expectation: Expectation?, flow: Flow, labels: Labels) -> TemplateValue {
        var item: TemplateFields = [:]
        if let request {
            item["requestHTML"] = .string(requestHTML(request, flow: flow))
            item["curl"] = .string(curlCommand(request, flow: flow))
            item["operation"] = operationContext(request: request, expectation: expectation, flow: flow, labels: labels)
        } else {
            item["requestHTML"] = false
            item["operation"] = false
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

    func matcherText(_ matcher: ValueMatcher, labels: Labels) -> String {
        switch matcher {
        case .equals(let value): return "= " + value.description
        case .type(let type): return labels["matcher_type"] + " " + type.rawValue
        case .exists(let present): return present ? labels["matcher_exists"] : labels["matcher_absent"]
        case .matches(let pattern): return labels["matcher_matches"] + " /" + pattern + "/"
        }
    }

    /// The request as readable, highlighted HTTP. Every piece of spec text is escaped.
    func requestHTML(_ request: RequestTemplate, flow: Flow) -> String {
        // One buffer for the whole request (String concatenations and a String per escaped
        // piece cost 34 000 instructions a request).
        var out: [UInt8] = []
        out.reserveCapacity(160 + request.target.utf8.count + (request.body?.utf8.count ?? 0))
        func markup(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        markup("<span class=\"http-method\">")
        HTML.appendEscaped(request.method, to: &out)
        markup("</span> <span class=\"http-target\">")
        appendPlaceholders(request.target, flow: flow, to: &out)
        markup("</span>")
        for header in request.headers {
            markup("\n<span class=\"http-header\">")
            HTML.appendEscaped(header.name, to: &out)
            markup("</span>: ")
            appendPlaceholders(header.value, flow: flow, to: &out)
        }
        if let body = request.body, !body.isEmpty {
            markup("\n\n")
            appendPlaceholders(body, flow: flow, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes text and marks `{{name}}` placeholders, with what they stand for as a tooltip.
    func appendPlaceholders(_ text: String, flow: Flow, to out: inout [UInt8]) {
        let bytes = Array(text.utf8)
        func find(_ a: UInt8, from start: Int) -> Int? { TemplateScan.pair(a, in: bytes, from: start) }
        func piece(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        func markup(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        var position = 0
        while let open = find(0x7B, from: position) {
            HTML.appendEscaped(piece(position..<open), to: &out)
            guard let close = find(0x7D, from: open + 2) else {
                position = open
                break
            }
            let name = piece((open + 2)..<close).trimmingCharacters()
            let meaning = flow.variables.first { $0.name == name }.map { "= " + $0.value }
                ?? VariableReference.providerValues[name]
            markup("<span class=\"ph\"")
            if let meaning {
                markup(" title=\"")
                HTML.appendEscaped(meaning, to: &out)
                markup("\"")
            }
            markup(">")
            HTML.appendEscaped("{{" + name + "}}", to: &out)
            markup("</span>")
            position = close + 2
        }
        HTML.appendEscaped(piece(position..<bytes.count), to: &out)
    }
}
