import FlowModel
import FlowParser
import Foundation

// A flow page's steps: actors, exchange (request and expectation), branches, verdicts.

extension PageRenderer {
    func stepContext(_ step: Step, flow: Flow, machine: StateMachine, labels: Labels, result: SiteResults.FlowResult?, titles: [Int: String]) -> TemplateFields {
        let from = flow.actor(step.from)
        let to = flow.actor(step.to)
        let kind = flow.kind(of: step)
        var item: TemplateFields = [
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
            branch.merge(targetContext(alternate.target, titles: titles, labels: labels))
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

    func targetContext(_ target: Target, titles: [Int: String], labels: Labels) -> TemplateFields {
        switch target {
        case .step(let number):
            return [
                "targetStep": ["number": .string(String(number)), "href": .string("#step-\(number)"), "titleHTML": .string(inline(titles[number] ?? ""))],
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
    func placeholders(_ text: String, flow: Flow) -> String {
        let bytes = Array(text.utf8)
        func find(_ a: UInt8, from start: Int) -> Int? { TemplateScan.pair(a, in: bytes, from: start) }
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
}
