import FlowModel

/// FS205 a step names an actor the front matter does not declare; FS208 a declared actor
/// takes part in no step.
struct ActorsRule: FlowRule {
    static let codes: [DiagnosticCode] = [.undeclaredActor, .idleActor]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        let declared = flow.actors.map(\.id)
        var used = Set<String>()
        for step in flow.steps where step.actorsLocation != nil {
            for (id, location) in [(step.from, step.fromLocation), (step.to, step.toLocation)] {
                used.insert(id)
                guard flow.actor(id) == nil, let location else { continue }
                let hint = suggestion(for: id, among: declared).map { "did you mean '\($0)'?" }
                    ?? "declare it under `actors:` in the front matter (declared: \(declared.joined(separator: ", ")))"
                diagnostics.append(.error(.undeclaredActor, location, "actor '\(id)' in step \(step.number) is not declared", hint: hint))
            }
        }
        guard !flow.steps.isEmpty else { return }
        for actor in flow.actors where !used.contains(actor.id) {
            diagnostics.append(.warning(.idleActor, actor.location, "actor '\(actor.id)' takes part in no step",
                                        hint: "remove it, or name it in a step's actors line"))
        }
    }
}
