import FlowMocks
import FlowModel

/// How the checker drives each transition, and whether it can.
enum Drive: Equatable {
    /// Nothing to send or observe at this step (UI, response, internal): not executable.
    case passive
    /// Simulated at the mock provider with this outcome.
    case provider(AuthorizeOutcome)
    /// Send this request and judge it against this expectation.
    case send(RequestTemplate, Expectation?)
    /// Observe the backend's call to the provider.
    case observe
    /// The branch cannot be driven from outside; the reason says why.
    case impossible(VerdictMessage)

    /// Decides how to drive `transition` of `flow`.
    static func plan(_ transition: StateMachine.Transition, in flow: Flow) -> Drive {
        guard let step = flow.step(transition.from) else { return .impossible(VerdictMessage(.noSuchStep, ["step": String(transition.from)])) }
        let kind = flow.kind(of: step)
        let alternates = step.alternates
        let alternate = transition.alternateIndex.flatMap { alternates.indices.contains($0) ? alternates[$0] : nil }
        switch kind {
        case .providerInteraction:
            return .provider(outcome(of: transition))
        case .request, .providerMessage:
            if kind == .providerMessage, !step.hasExchange {
                return isDefault(transition, in: step) ? .passive : .impossible(notDrivable(step, alternate))
            }
            guard let exchange = step.exchange else { return .passive }
            if let alternate, alternates.count > 1 {
                if let request = alternate.request {
                    return .send(request, alternate.expectation ?? exchange.expectation)
                }
                guard isDefault(transition, in: step) else {
                    return .impossible(VerdictMessage(.branchWithoutRequest, ["branch": alternate.label, "step": String(step.number), "default": defaultAlternate(of: step)?.label ?? "?"]))
                }
                return .send(exchange.request, alternate.expectation ?? exchange.expectation)
            }
            return .send(exchange.request, alternate?.expectation ?? exchange.expectation)
        case .providerCall:
            return isDefault(transition, in: step) ? .observe : .impossible(notDrivable(step, alternate))
        case .internal:
            return isDefault(transition, in: step) ? .passive : .impossible(notDrivable(step, alternate))
        case .ui, .response, .undescribedRequest, .unknown:
            // The backend is not involved in the choice: any branch is as good as another.
            return .passive
        }
    }

    private static func notDrivable(_ step: Step, _ alternate: Alternate?) -> VerdictMessage {
        VerdictMessage(.branchNotDrivable, ["branch": alternate?.label ?? "?", "step": String(step.number)])
    }

    /// The branch a step takes with ordinary input: among the alternates that have no request
    /// of their own, the first that does not end the flow unsuccessfully (else the first).
    static func defaultAlternate(of step: Step) -> Alternate? {
        let shared = step.alternates.filter { $0.request == nil }
        return shared.first { alternate in
            if case .end(let outcome) = alternate.target { return outcome == .success }
            return true
        } ?? shared.first
    }

    static func isDefault(_ transition: StateMachine.Transition, in step: Step) -> Bool {
        guard let index = transition.alternateIndex, step.alternates.count > 1 else { return true }
        guard let chosen = defaultAlternate(of: step) else { return false }
        return step.alternates.firstIndex(of: chosen) == index
    }

    /// The person's or provider's outcome a provider-interaction branch stands for: a branch
    /// that ends the flow as cancelled is a denial, one that ends otherwise unsuccessfully or
    /// goes back to an earlier (or the same) step is a failed authentication, any other approves.
    static func outcome(of transition: StateMachine.Transition) -> AuthorizeOutcome {
        guard transition.alternateIndex != nil else { return .approved }
        switch transition.target {
        case .end(let outcome):
            if outcome == .cancelled { return .denied }
            return outcome == .success ? .approved : .authenticationFailed
        case .step(let next):
            return next <= transition.from ? .authenticationFailed : .approved
        }
    }
}
