import FlowModel

/// FS404 a `{{name}}` used before any earlier step captures it and not declared; FS405 an
/// unknown `provider.*` value.
struct VariablesRule: FlowRule {
    static let codes: [DiagnosticCode] = [.placeholderTooEarly, .unknownProviderValue]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        let machine = context.machine
        let declared = Set(flow.variables.map(\.name))
        var capturesByStep: [Int: Set<String>] = [:]
        for step in flow.steps {
            var names = Set(step.exchange?.expectation?.captures.map(\.name) ?? [])
            for alternate in step.alternates {
                names.formUnion(alternate.expectation?.captures.map(\.name) ?? [])
            }
            capturesByStep[step.number, default: []].formUnion(names)
        }
        let knownProvider = VariableReference.providerValues.keys.sorted()
        var incoming: StateTable<[Int]>?
        for step in flow.steps {
            var references = step.exchange?.references ?? []
            for alternate in step.alternates {
                references += alternate.request?.references ?? []
                references += alternate.expectation?.references ?? []
            }
            guard !references.isEmpty else { continue }
            // The edges are made once per flow, for the first step that needs them.
            if incoming == nil { incoming = machine.incomingEdges() }
            let predecessors = machine.predecessors(of: step.number, incoming: incoming!).subtracting([step.number])
            let available = predecessors.reduce(into: declared) { $0.formUnion(capturesByStep[$1] ?? []) }
            for reference in references {
                let name = reference.name
                if name.hasPrefix("provider.") {
                    if VariableReference.providerValues[name] == nil {
                        let hint = suggestion(for: name, among: knownProvider).map { "did you mean '{{\($0)}}'?" }
                            ?? "provider values: \(knownProvider.joined(separator: ", "))"
                        diagnostics.append(.error(.unknownProviderValue, reference.location, "'{{\(name)}}' is not a value the mock provider supplies", hint: hint))
                    }
                    continue
                }
                if available.contains(name) { continue }
                let laterCapture = capturesByStep.filter { $0.value.contains(name) }.map(\.key).sorted().first
                let hint: String
                if let laterCapture {
                    hint = laterCapture == step.number
                        ? "'\(name)' is captured by this same step's response; a request cannot use it"
                        : "it is captured in step \(laterCapture), which does not come before step \(step.number) on any path"
                } else if let near = suggestion(for: name, among: Array(available)) {
                    hint = "did you mean '{{\(near)}}'?"
                } else {
                    hint = "declare it under `variables:` or capture it in an earlier step's `expect` block"
                }
                diagnostics.append(.error(.placeholderTooEarly, reference.location,
                                          "'{{\(name)}}' is used in step \(step.number) before any step captures or declares it",
                                          hint: hint))
            }
        }
    }
}
