import FlowExport
import FlowModel

/// Turns one Arazzo workflow into a flow, reporting what it could not map (FS702).
struct ArazzoReader {
    let file: String
    let operations: OperationIndex
    var report: [Diagnostic] = []

    var here: SourceLocation { .start(of: file) }

    mutating func unmapped(_ message: String) {
        report.append(Diagnostic(.arazzoUnmapped, severity: .warning, location: here, message: message))
    }

    /// What the written spec says first, instead of prose.
    static func note(_ workflow: String) -> String {
        """
        > Imported from the Arazzo workflow `\(workflow)` by `flowspec import`: the steps, actors, requests, \
        expected answers and branches are here, the prose is not. Add what each step means and why under its \
        heading, and an introduction above the steps (what the flow is for, who takes part); then delete this note.
        """
    }

    mutating func flow(from workflow: ArazzoDocument.Workflow) -> Flow {
        let steps = Dictionary(workflow.steps.map { ($0.stepId, $0) }, uniquingKeysWith: { first, _ in first })
        var flow = Flow(file: file, id: workflow.workflowId, title: workflow.summary ?? workflow.workflowId, location: here)
        flow.sections = [ProseSection(heading: "", level: 0, body: Markdown(source: Self.note(workflow.workflowId), location: here),
                                      placement: .beforeSteps)]
        flow.variables = (workflow.inputs?.properties ?? [:]).sorted { $0.key < $1.key }.compactMap { name, schema in
            schema.defaultValue.map { Variable(name: name, value: $0, location: here) }
        }
        if let skeleton = workflow.flowspec {
            apply(skeleton, steps: steps, to: &flow)
        } else {
            foreign(workflow, to: &flow)
        }
        return flow
    }

    /// A document flowspec exported: the structure from `x-flowspec`, the calls from the steps.
    private mutating func apply(_ skeleton: FlowSkeleton, steps: [String: ArazzoDocument.Step], to flow: inout Flow) {
        flow.lang = skeleton.lang
        flow.provider = skeleton.provider
        flow.nonce = skeleton.nonce.flatMap(NonceTransform.init(rawValue:))
        flow.tags = skeleton.tags ?? []
        flow.environments = skeleton.environments ?? []
        flow.actors = skeleton.actors.map { Actor(id: $0.id, name: $0.name, role: ActorRole(spelling: $0.role) ?? .client, location: here) }
        flow.tokenRules = (skeleton.tokenRules ?? []).map {
            TokenRule(id: $0.id, kind: TokenRuleKind(rawValue: $0.id), token: $0.token, step: $0.step, requirement: $0.requirement, location: here)
        }
        for entry in skeleton.steps {
            var step = Step(number: entry.number, title: entry.title, from: entry.from, to: entry.to,
                            prose: Markdown(source: "", location: here), location: here)
            if let call = steps["step-\(entry.number)"] { step.exchange = exchange(call) }
            for (index, alternate) in (entry.alternates ?? []).enumerated() {
                step.alternates.append(self.alternate(alternate, index: index, of: entry.number, steps: steps))
            }
            flow.steps.append(step)
        }
    }

    private mutating func alternate(_ entry: FlowSkeleton.AlternateEntry, index: Int, of number: Int,
                                    steps: [String: ArazzoDocument.Step]) -> Alternate {
        var alternate = Alternate(label: entry.label, target: Self.target(entry.target) ?? .end(.failure), location: here)
        if Self.target(entry.target) == nil { unmapped("branch '\(entry.label)' of step \(number): target '\(entry.target)' not understood") }
        if let call = steps["step-\(number)-alt-\(index + 1)"] {
            let own = exchange(call)
            alternate.request = own?.request
            alternate.expectation = entry.sharedExpectation == true ? nil : own?.expectation
        } else if let main = steps["step-\(number)"],
                  let action = (main.onFailure ?? []).first(where: { $0.name == entry.label }), let criteria = action.criteria {
            alternate.expectation = expectation(criteria, outputs: nil)
        }
        return alternate
    }

    /// `6` or `end: cancelled`.
    static func target(_ text: String) -> Target? {
        if let number = Int(text) { return .step(number) }
        guard text.hasPrefix("end:") else { return nil }
        let outcome = text.dropFirst(4).trimmingCharacters(in: .whitespaces)
        return outcome.isEmpty ? nil : .end(Outcome(outcome))
    }

    /// A workflow from elsewhere: each operation step is `app → backend`, numbered in order;
    /// its actions are its branches.
    private mutating func foreign(_ workflow: ArazzoDocument.Workflow, to flow: inout Flow) {
        flow.actors = [Actor(id: "app", name: "Client", role: .client, location: here),
                       Actor(id: "backend", name: "Backend", role: .backend, location: here)]
        let calls = workflow.steps.filter { step in
            if step.workflowId != nil { unmapped("step '\(step.stepId)' runs another workflow: not mapped") }
            return step.workflowId == nil
        }
        let numbers = Dictionary(calls.enumerated().map { ($1.stepId, $0 + 1) }, uniquingKeysWith: { first, _ in first })
        for (index, call) in calls.enumerated() {
            let title = call.description.flatMap { $0.split(separator: "\n").first.map(String.init) } ?? call.stepId
            var step = Step(number: index + 1, title: title, from: "app", to: "backend", prose: Markdown(source: "", location: here), location: here)
            step.exchange = exchange(call)
            step.alternates = branches(call, number: index + 1, numbers: numbers, last: index + 1 == calls.count)
            flow.steps.append(step)
        }
    }

    /// Actions as branches, unless the only one is to go on to the next step.
    private mutating func branches(_ call: ArazzoDocument.Step, number: Int, numbers: [String: Int], last: Bool) -> [Alternate] {
        let actions = (call.onSuccess ?? []).map { ($0, true) } + (call.onFailure ?? []).map { ($0, false) }
        if actions.isEmpty { return [] }
        var alternates: [Alternate] = []
        for (action, success) in actions {
            var target: Target = .end(success ? .success : .failure)
            switch action.type {
            case "goto":
                guard let id = action.stepId, let next = numbers[id] else {
                    unmapped("action '\(action.name)' of step '\(call.stepId)' goes to \(action.workflowId.map { "workflow \($0)" } ?? "an unknown step"): not mapped")
                    continue
                }
                target = .step(next)
            case "retry": target = .step(number)
            default: break
            }
            var alternate = Alternate(label: action.name, target: target, location: here)
            if let criteria = action.criteria { alternate.expectation = expectation(criteria, outputs: nil) }
            alternates.append(alternate)
        }
        let next: Target = last ? .end(.success) : .step(number + 1)
        if alternates.count == 1, alternates[0].expectation == nil, alternates[0].target == next { return [] }
        // Without onSuccess actions a runner goes on to the next step: that is a branch too.
        if (call.onSuccess ?? []).isEmpty, !alternates.isEmpty {
            alternates.insert(Alternate(label: "Succeeds", target: next, location: here), at: 0)
        }
        return alternates
    }
}
