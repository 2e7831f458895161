import FlowModel

/// FS406 an `http` block on a step the checker cannot send (only client/person → backend and
/// provider → backend steps are sent); FS407 a client or person → backend step without an `http`
/// block (the checker cannot execute it); FS408 an exchange without an `expect` block.
struct ExchangesRule: FlowRule {
    static let codes: [DiagnosticCode] = [.checkStepSends, .missingHTTP, .missingExpect]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        for step in flow.steps {
            guard let fromRole = flow.actor(step.from)?.role, let toRole = flow.actor(step.to)?.role else { continue }
            let sendable = toRole == .backend && fromRole != .backend
            let branchRequests = step.alternates.compactMap(\.request)
            if let exchange = step.exchange, !sendable {
                diagnostics.append(.warning(.checkStepSends, exchange.request.location,
                                            "step \(step.number) (\(step.from) → \(step.to)) has an http block, but check only sends requests to the backend",
                                            hint: "move the request to the client → backend step that makes it, or describe this step in prose"))
            }
            let fromClient = fromRole == .client || fromRole == .person
            if toRole == .backend, fromClient, !step.hasExchange, branchRequests.isEmpty {
                diagnostics.append(.warning(.missingHTTP, step.actorsLocation ?? step.location,
                                            "step \(step.number) sends to the backend but has no http block: check cannot execute it",
                                            hint: "add a fenced `http` block with the request and an `expect` block with the answer"))
            }
            if let exchange = step.exchange, exchange.expectation == nil,
               step.alternates.isEmpty || step.alternates.contains(where: { $0.expectation == nil }) {
                diagnostics.append(.warning(.missingExpect, exchange.request.location,
                                            "step \(step.number)'s request has no expect block: any answer would pass",
                                            hint: "add ```expect with at least `status:`"))
            }
        }
    }
}
