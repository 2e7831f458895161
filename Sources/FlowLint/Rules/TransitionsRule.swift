import FlowModel

/// FS301 an alternate points at a step that does not exist; FS302 a step no path reaches;
/// FS303 a step from which no path reaches an end; FS305 two alternates of a step share a label.
struct TransitionsRule: FlowRule {
    static let codes: [DiagnosticCode] = [.missingTarget, .unreachableStep, .noPathToEnd, .duplicateAlternateLabel]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        let machine = context.machine
        let numbers = Set(machine.states)
        var dangling = false
        for step in flow.steps {
            var labels: [String: Alternate] = [:]
            for alternate in step.alternates {
                if case .step(let target) = alternate.target, !numbers.contains(target) {
                    dangling = true
                    let nearest = machine.states.min { abs($0 - target) < abs($1 - target) }
                    diagnostics.append(.error(.missingTarget, alternate.targetLocation,
                                              "alternate '\(alternate.label)' of step \(step.number) goes to step \(target), which does not exist",
                                              hint: nearest.map { "steps run \(machine.states.first!)–\(machine.states.last!); did you mean \($0)?" }))
                }
                // Two alternates at least for a duplicate: one alone is not lowercased.
                guard step.alternates.count > 1 else { continue }
                let key = alternate.label.lowercasedOnBytes()
                if let first = labels[key] {
                    diagnostics.append(.warning(.duplicateAlternateLabel, alternate.location,
                                                "step \(step.number) has two alternates labelled '\(alternate.label)'",
                                                hint: "give each branch its own condition",
                                                related: [RelatedLocation(location: first.location, message: "first one here")]))
                } else {
                    labels[key] = alternate
                }
            }
        }
        guard !machine.states.isEmpty else { return }
        let reachable = machine.reachableStates()
        let reachingEnd = machine.statesReachingEnd()
        var reported = Set<Int>()
        for step in flow.steps where reported.insert(step.number).inserted {
            if !reachable.contains(step.number) {
                diagnostics.append(.error(.unreachableStep, step.numberLocation, "step \(step.number) is unreachable: no path from step \(machine.start!) leads to it",
                                          hint: "point an alternate at it (`→ \(step.number)`), or remove it"))
            } else if !reachingEnd.contains(step.number), !dangling {
                diagnostics.append(.error(.noPathToEnd, step.numberLocation, "no path from step \(step.number) reaches an end",
                                          hint: "every path must end: add an alternate `→ end: failure` or a way out of the loop"))
            }
        }
    }
}
