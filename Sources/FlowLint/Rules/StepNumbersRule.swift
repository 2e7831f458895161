import FlowModel

/// FS201 no steps; FS202 duplicate step numbers (reported at the second one); FS203 numbers
/// that do not run 1, 2, 3… in document order.
struct StepNumbersRule: FlowRule {
    static let codes: [DiagnosticCode] = [.noSteps, .duplicateStep, .stepGap]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let steps = context.flow.steps
        guard !steps.isEmpty else {
            diagnostics.append(.error(.noSteps, context.flow.location, "flow '\(context.flow.id)' has no steps",
                                      hint: "add a section with `### 1. Title` headings, one per step"))
            return
        }
        var firstByNumber: [Int: Step] = [:]
        var expected = 1
        for step in steps {
            if let first = firstByNumber[step.number] {
                diagnostics.append(.error(
                    .duplicateStep, step.numberLocation, "step \(step.number) is defined twice",
                    hint: "renumber this step (and the ones after it); step numbers are the states of the flow",
                    related: [RelatedLocation(location: first.numberLocation, message: "step \(step.number) is first defined here")]))
                continue
            }
            firstByNumber[step.number] = step
            if step.number != expected {
                let message: String
                if step.number > expected {
                    let missing = expected == step.number - 1 ? "\(expected) is" : "\(expected)–\(step.number - 1) are"
                    message = expected == 1
                        ? "steps start at \(step.number), not 1"
                        : "step \(step.number) follows step \(expected - 1): \(missing) missing"
                } else {
                    message = "step \(step.number) comes after step \(expected - 1)"
                }
                diagnostics.append(.error(.stepGap, step.numberLocation, message,
                                          hint: "number steps 1, 2, 3… in document order"))
            }
            expected = max(expected, step.number + 1)
        }
    }
}
