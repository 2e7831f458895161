import FlowModel

/// Writes a `Flow` as a spec in the canonical format (docs/flow-format.md). Used by
/// `flowspec import`; parsing the output gives back the same structure.
public enum SpecWriter {
    /// Localised title of the steps section, by spec language.
    static let stepsHeading: [String: String] = ["en": "Steps", "vi": "Các bước", "tr": "Adımlar"]
    static let rulesHeading: [String: String] = ["en": "Token rules", "vi": "Quy tắc token", "tr": "Token kuralları"]

    public static func write(_ flow: Flow) -> String {
        var out = "---\n"
        out += "id: \(yaml(flow.id))\n"
        out += "title: \(yaml(flow.title))\n"
        if let summary = flow.summary { out += "summary: \(yaml(summary))\n" }
        out += "lang: \(yaml(flow.lang))\n"
        if let original = flow.translationOf { out += "translation-of: \(yaml(original))\n" }
        if !flow.tags.isEmpty { out += "tags: [\(flow.tags.map(yaml).joined(separator: ", "))]\n" }
        if !flow.environments.isEmpty { out += "environments: [\(flow.environments.map(yaml).joined(separator: ", "))]\n" }
        if let provider = flow.provider { out += "provider: \(yaml(provider))\n" }
        if let openapi = flow.openapi { out += "openapi: \(yaml(openapi))\n" }
        if let nonce = flow.nonce { out += "nonce: \(nonce.rawValue)\n" }
        out += "actors:\n"
        for actor in flow.actors {
            out += "  \(actor.id): { name: \(yaml(actor.name)), role: \(actor.role.rawValue) }\n"
        }
        if !flow.variables.isEmpty {
            out += "variables:\n"
            for variable in flow.variables { out += "  \(variable.name): \(yaml(variable.value))\n" }
        }
        out += "---\n"
        let before = flow.sections.filter { $0.placement == .beforeSteps }
        // The steps section's own intro (same heading) is written as the steps' heading and intro.
        let intro = before.last.flatMap { $0.level == 2 && $0.heading == flow.stepsHeading ? $0 : nil }
        for section in before.dropLast(intro == nil ? 0 : 1) {
            out += "\n" + write(section)
        }
        if let intro {
            out += "\n" + write(intro)
        } else {
            out += "\n## \(flow.stepsHeading ?? stepsHeading[flow.lang] ?? "Steps")\n"
        }
        for step in flow.steps {
            out += "\n### \(step.number). \(step.title)\n"
            out += "\(step.from.isEmpty ? "?" : step.from) → \(step.to.isEmpty ? "?" : step.to)\n"
            if !step.prose.isEmpty { out += "\n\(step.prose.source)\n" }
            if let exchange = step.exchange {
                out += "\n" + write(exchange.request)
                if let expectation = exchange.expectation { out += "\n" + write(expectation) }
            }
            if !step.alternates.isEmpty {
                out += "\n"
                for alternate in step.alternates {
                    out += "- \(alternate.label) → \(alternate.target)\n"
                    if let request = alternate.request { out += indent(write(request)) }
                    if let expectation = alternate.expectation { out += indent(write(expectation)) }
                    // A blank line first: text right under the item would continue its label.
                    if let note = alternate.note { out += "\n" + indent(note.source + "\n") + "\n" }
                }
            }
        }
        if !flow.tokenRules.isEmpty {
            out += "\n## \(rulesHeading[flow.lang] ?? "Token rules")\n\n| Rule | Token | Requirement |\n|---|---|---|\n"
            var previousStep: Int?
            for rule in flow.tokenRules {
                let token = rule.step != nil && rule.step != previousStep ? "\(rule.token) @ \(rule.step!)" : rule.token
                previousStep = rule.step
                out += "| \(cell(rule.id)) | \(cell(token)) | \(cell(rule.requirement)) |\n"
            }
        }
        for section in flow.sections where section.placement == .afterSteps {
            out += "\n" + write(section)
        }
        return out
    }

    static func write(_ section: ProseSection) -> String {
        var out = ""
        if section.level > 0 {
            out += String(repeating: "#", count: section.level) + " \(section.heading)\n\n"
        }
        if !section.body.isEmpty { out += section.body.source.trimmingTrailingNewlines() + "\n" }
        return out
    }

    static func write(_ request: RequestTemplate) -> String {
        var out = "```http\n\(request.method) \(request.target)\n"
        for header in request.headers { out += "\(header.name): \(header.value)\n" }
        if let body = request.body { out += "\n\(body)\n" }
        return out + "```\n"
    }

    static func write(_ expectation: Expectation) -> String {
        var out = "```expect\n"
        if let status = expectation.status {
            let values = status.codes.map(String.init) + status.classes.map { "\($0)xx" }
            out += "status: " + (values.count == 1 ? values[0] : "[\(values.joined(separator: ", "))]") + "\n"
        }
        if !expectation.headers.isEmpty {
            out += "headers:\n"
            for header in expectation.headers { out += "  \(header.name): \(matcher(header.matcher))\n" }
        }
        if !expectation.json.isEmpty {
            out += "json:\n"
            for assertion in expectation.json { out += "  \(yaml(assertion.path.description)): \(matcher(assertion.matcher))\n" }
        }
        if !expectation.captures.isEmpty {
            out += "capture:\n"
            for capture in expectation.captures { out += "  \(capture.name): \(yaml(capture.source.description))\n" }
        }
        return out + "```\n"
    }

    static func matcher(_ matcher: ValueMatcher) -> String {
        switch matcher {
        case .equals(let value): return value.description
        case .type(let type): return "{ type: \(type.rawValue) }"
        case .exists(let flag): return "{ exists: \(flag) }"
        case .matches(let pattern): return "{ matches: \(JSONNode.quote(pattern)) }"
        }
    }

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.isEmpty ? "" : "  " + $0 }
            .joined(separator: "\n") + "\n"
    }

    static func cell(_ text: String) -> String {
        text.replacingPipes()
    }

    /// A YAML scalar: plain when unambiguous, otherwise a JSON-style double-quoted string.
    static func yaml(_ text: String) -> String {
        let special: Set<Character> = [":", "#", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`", "\\"]
        let reserved = ["true", "false", "yes", "no", "null", "~", "on", "off", ""]
        let needsQuotes = text.contains(where: { special.contains($0) || $0.isNewline || $0 == "\t" })
            || reserved.contains(text.lowercased())
            || text.first == " " || text.last == " " || text.first == "-" || text.first == "?"
            || Double(text) != nil
        return needsQuotes ? JSONNode.quote(text) : text
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var slice = Substring(self)
        while let last = slice.last, last.isNewline || last == " " { slice.removeLast() }
        return String(slice)
    }

    func replacingPipes() -> String {
        var out = ""
        for character in self {
            if character == "|" { out += "\\|" } else if character == "\n" { out += " " } else { out.append(character) }
        }
        return out
    }
}
