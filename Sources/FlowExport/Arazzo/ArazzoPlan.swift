import FlowModel

/// One flow's workflow being written: which steps are workflow steps, which step produces
/// each captured value, and where each way out of a step leads.
struct ArazzoPlan {
    let flow: Flow
    let machine: StateMachine
    /// The steps with an `http` block, in document order (first of a duplicated number).
    let requestSteps: [Step]
    let position: [Int: Int]
    /// Captured name → the stepId that captures it first.
    let producers: [String: String]

    init(flow: Flow) {
        self.flow = flow
        machine = StateMachine(flow: flow)
        var seen = Set<Int>()
        requestSteps = flow.steps.filter { $0.hasExchange && seen.insert($0.number).inserted }
        position = Dictionary(requestSteps.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { first, _ in first })
        var producers: [String: String] = [:]
        for step in requestSteps {
            for capture in step.exchange?.expectation?.captures ?? [] where producers[capture.name] == nil {
                producers[capture.name] = Self.stepID(step.number)
            }
        }
        for step in requestSteps {
            // Only a branch with its own request is a workflow step that can produce a value.
            for (index, alternate) in step.alternates.enumerated() where alternate.request != nil {
                for capture in alternate.expectation?.captures ?? [] where producers[capture.name] == nil {
                    producers[capture.name] = Self.stepID(step.number, alternate: index)
                }
            }
        }
        self.producers = producers
    }

    static func stepID(_ number: Int, alternate: Int? = nil) -> String {
        alternate.map { "step-\(number)-alt-\($0 + 1)" } ?? "step-\(number)"
    }

    func mainStep(_ step: Step) -> ArazzoDocument.Step {
        let exchange = step.exchange!
        var onSuccess: [ArazzoDocument.Action] = []
        var onFailure: [ArazzoDocument.Action] = []
        let plain = step.alternates.filter { $0.request == nil && $0.expectation == nil }
        if step.alternates.isEmpty {
            let next = machine.transitions(from: step.number).first?.target ?? .end(.success)
            onSuccess.append(action("continue", destination(next, after: step.number)))
        }
        for alternate in plain { onSuccess.append(action(alternate.label, destination(alternate.target, after: step.number))) }
        if onSuccess.isEmpty { onSuccess.append(ArazzoDocument.Action(name: "answered", type: "end")) }
        for (index, alternate) in step.alternates.enumerated() where alternate.request != nil || alternate.expectation != nil {
            let target = alternate.request != nil
                ? (type: "goto", stepId: Optional(Self.stepID(step.number, alternate: index)))
                : destination(alternate.target, after: step.number)
            var failure = action(alternate.label, target)
            // The branch applies when the answer is the branch's own expected answer.
            let criteria = alternate.expectation.map { ArazzoCriteria.criteria(for: $0, producers: producers) } ?? []
            failure.criteria = criteria.isEmpty ? nil : criteria
            onFailure.append(failure)
        }
        return workflowStep(Self.stepID(step.number), "\(step.number). \(step.title) (\(step.from) → \(step.to))",
                            request: exchange.request, expectation: exchange.expectation,
                            onSuccess: onSuccess, onFailure: onFailure.isEmpty ? nil : onFailure)
    }

    func alternateStep(_ step: Step, _ alternate: Alternate, index: Int) -> ArazzoDocument.Step {
        let onSuccess = [action(alternate.label, destination(alternate.target, after: step.number))]
        return workflowStep(Self.stepID(step.number, alternate: index),
                            "\(step.number). \(step.title) — \(alternate.label) (\(step.from) → \(step.to))",
                            request: alternate.request!, expectation: alternate.expectation ?? step.exchange?.expectation,
                            onSuccess: onSuccess, onFailure: nil)
    }

    private func workflowStep(_ id: String, _ description: String, request: RequestTemplate, expectation: Expectation?,
                              onSuccess: [ArazzoDocument.Action], onFailure: [ArazzoDocument.Action]?) -> ArazzoDocument.Step {
        let shape = ArazzoRequest(request, producers: producers)
        let criteria = expectation.map { ArazzoCriteria.criteria(for: $0, producers: producers) } ?? []
        return ArazzoDocument.Step(
            stepId: id, description: description, operationPath: shape.operationPath(source: ArazzoExporter.sourceName),
            parameters: shape.parameters.isEmpty ? nil : shape.parameters, requestBody: shape.requestBody,
            successCriteria: criteria.isEmpty ? nil : criteria, onSuccess: onSuccess, onFailure: onFailure,
            outputs: expectation.flatMap(ArazzoCriteria.outputs(for:)))
    }

    private func action(_ name: String, _ target: (type: String, stepId: String?)) -> ArazzoDocument.Action {
        ArazzoDocument.Action(name: name, type: target.type, stepId: target.stepId)
    }

    /// Where `target` leads a runner after step `number`: a workflow step directly, else along
    /// the steps it cannot take (breadth first, branches in order) to the nearest later workflow
    /// step or an end; a way back to an earlier request is a person's choice, not the runner's.
    func destination(_ target: Target, after number: Int) -> (type: String, stepId: String?) {
        guard case .step(let first) = target else { return ("end", nil) }
        if position[first] != nil { return ("goto", Self.stepID(first)) }
        let current = position[number] ?? -1
        var queue = [first]
        var visited: Set<Int> = [first]
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            for transition in machine.transitions(from: state) {
                guard case .step(let next) = transition.target else { return ("end", nil) }
                if let index = position[next] {
                    if index > current { return ("goto", Self.stepID(next)) }
                } else if visited.insert(next).inserted {
                    queue.append(next)
                }
            }
        }
        return ("end", nil)
    }
}
