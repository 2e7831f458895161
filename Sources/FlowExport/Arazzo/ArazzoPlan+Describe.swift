import FlowModel

extension ArazzoPlan {
    /// The steps a runner cannot take, each with why, and what the provider inputs stand for.
    func description() -> String {
        var lines = ["Exported by flowspec from the flow `\(flow.id)`. The workflow steps are the flow's API calls (`step-N` is step N)."]
        let others = flow.steps.filter { !$0.hasExchange }
        if !others.isEmpty {
            lines.append("")
            lines.append("Steps Arazzo cannot express (not run by an Arazzo runner; `flowspec check` plays or observes them):")
            lines.append("")
            for step in others {
                lines.append("- \(step.number). \(step.title) (\(step.from) → \(step.to)): \(ArazzoExporter.limitation(flow.kind(of: step)))")
                for alternate in step.alternates { lines.append("  - \(alternate.label) → \(alternate.target)") }
            }
        }
        let provider = providerNames()
        if !provider.isEmpty {
            lines.append("")
            lines.append("The `provider` input holds what the identity provider\(flow.provider.map { " (\($0))" } ?? "") hands out in "
                         + "those steps: \(provider.map { "`\($0)`" }.joined(separator: ", ")).")
        }
        return lines.joined(separator: "\n")
    }

    /// Every placeholder the workflow's requests and criteria use, in order of appearance.
    func placeholderNames() -> [String] {
        var names: [String] = []
        func add(_ text: String?) {
            for name in ArazzoExpressions.names(in: text ?? "") where !names.contains(name) { names.append(name) }
        }
        for step in requestSteps {
            var requests = [step.exchange?.request]
            var expectations = [step.exchange?.expectation]
            for alternate in step.alternates {
                requests.append(alternate.request)
                expectations.append(alternate.expectation)
            }
            for request in requests.compactMap({ $0 }) {
                add(request.target)
                for header in request.headers { add(header.value) }
                add(request.body)
            }
            for expectation in expectations.compactMap({ $0 }) {
                for header in expectation.headers { add(SpecMatcherText.text(header.matcher)) }
                for assertion in expectation.json { add(SpecMatcherText.text(assertion.matcher)) }
            }
        }
        return names
    }

    /// `code`, `id_token`… for the `provider.*` placeholders used.
    func providerNames() -> [String] {
        placeholderNames().filter { $0.hasPrefix("provider.") }.map { String($0.dropFirst("provider.".count)) }
    }

    /// Declared variables (with their values as defaults), the `provider` object, and any
    /// other name used but neither declared nor captured.
    func inputs() -> InputSchema? {
        var properties: [String: InputSchema] = [:]
        for variable in flow.variables {
            properties[variable.name] = InputSchema(type: "string", defaultValue: variable.value)
        }
        for name in placeholderNames() where !name.hasPrefix("provider.") && producers[name] == nil && properties[name] == nil {
            properties[name] = InputSchema(type: "string")
        }
        let provider = providerNames()
        if !provider.isEmpty {
            var values: [String: InputSchema] = [:]
            for name in provider {
                values[name] = InputSchema(type: "string", description: VariableReference.providerValues["provider.\(name)"])
            }
            properties["provider"] = InputSchema(
                type: "object", description: "What the identity provider hands out during the steps a runner cannot take",
                properties: values, required: provider.sorted())
        }
        guard !properties.isEmpty else { return nil }
        return InputSchema(type: "object", properties: properties, required: provider.isEmpty ? nil : ["provider"])
    }

    /// `x-flowspec`: actors, every step with its actors and branches, token rules.
    func skeleton() -> FlowSkeleton {
        FlowSkeleton(
            lang: flow.lang, provider: flow.provider, nonce: flow.nonce?.rawValue,
            tags: flow.tags.isEmpty ? nil : flow.tags, environments: flow.environments.isEmpty ? nil : flow.environments,
            actors: flow.actors.map { .init(id: $0.id, name: $0.name, role: $0.role.rawValue) },
            steps: flow.steps.map { step in
                FlowSkeleton.StepEntry(
                    number: step.number, title: step.title, from: step.from, to: step.to,
                    kind: flow.kind(of: step).rawValue,
                    alternates: step.alternates.isEmpty ? nil : step.alternates.map {
                        .init(label: $0.label, target: $0.target.description,
                              sharedExpectation: $0.request != nil && $0.expectation == nil ? true : nil)
                    })
            },
            tokenRules: flow.tokenRules.isEmpty ? nil : flow.tokenRules.map { .init(id: $0.id, token: $0.token, step: $0.step, requirement: $0.requirement) })
    }
}

/// The placeholder-bearing text of a matcher (expected strings may use `{{name}}`).
enum SpecMatcherText {
    static func text(_ matcher: ValueMatcher) -> String {
        if case .equals(let value) = matcher { return value.description }
        return ""
    }
}
