import FlowModel

/// FS501 unknown token rule id; FS503 a rule names a step that does not exist or sends no
/// request; FS504 a rule names no step at all.
struct TokenRulesRule: FlowRule {
    static let codes: [DiagnosticCode] = [.unknownTokenRule, .tokenRuleStep, .tokenRuleWithoutStep]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        let known = TokenRuleKind.allCases.map(\.rawValue)
        var reportedMissingStep = false
        for rule in flow.tokenRules {
            if rule.kind == nil {
                let hint = suggestion(for: rule.id, among: known).map { "did you mean '\($0)'?" }
                    ?? "known rules: \(known.joined(separator: ", "))"
                diagnostics.append(.error(.unknownTokenRule, rule.location, "unknown token rule '\(rule.id)'", hint: hint))
            }
            guard let number = rule.step else {
                // Rows inherit the step of the row above: say it once, at the first row lacking one.
                guard !reportedMissingStep else { continue }
                reportedMissingStep = true
                diagnostics.append(.error(.tokenRuleWithoutStep, rule.location, "token rule '\(rule.id)' does not say which step submits the token",
                                          hint: "write the step in the Token column of the first row: `\(rule.token.isEmpty ? "id_token" : rule.token) @ 6`"))
                continue
            }
            // An inherited step is judged where it was written.
            guard rule.stepLocation != nil else { continue }
            guard let step = flow.step(number) else {
                diagnostics.append(.error(.tokenRuleStep, rule.stepLocation ?? rule.location,
                                          "token rule '\(rule.id)' names step \(number), which does not exist"))
                continue
            }
            let sends = step.hasExchange || step.alternates.contains { $0.request != nil }
            if !sends {
                diagnostics.append(.error(.tokenRuleStep, rule.stepLocation ?? rule.location,
                                          "token rule '\(rule.id)' names step \(number), which sends no request",
                                          hint: "name the step whose http block carries the \(rule.token)"))
            }
        }
    }
}
