import FlowMocks
import FlowModel
import Foundation

/// Runs one work item from a fresh state (new user, new nonce, new sign-in) and turns what
/// happened into an `ItemResult`.
struct ItemRunner {
    let env: RunEnvironment

    func run(_ item: WorkItem, flow: Flow) async -> ItemResult {
        let started = ContinuousClock.now
        var env = self.env
        let ledger = SignInLedger()
        env.signIns = ledger
        let runner = ItemRunner(env: env)
        var result: ItemResult
        switch item.payload {
        case .scenario(let scenario):
            result = await runner.runScenario(scenario, id: item.id, flow: flow)
        case .tokenCase(let work):
            result = await runner.runTokenCase(work, id: item.id, flow: flow)
        }
        let elapsed = ContinuousClock.now - started
        result.durationMS = elapsed.wholeMilliseconds
        await ledger.release()
        return result
    }

    // MARK: Scenarios

    func runScenario(_ scenario: Scenario, id: String, flow: Flow) async -> ItemResult {
        let info = ScenarioInfo(index: scenario.index, path: scenario.steps, choices: scenario.choices, outcome: scenario.outcome.rawValue)
        let title = scenario.choices.isEmpty ? "main path → \(scenario.outcome)" : scenario.choices.joined(separator: "; ") + " → \(scenario.outcome)"
        var walker = Walker(env: env, flow: flow)
        // A path with a branch the checker cannot force is reported as such, not run half-way.
        for transition in scenario.transitions {
            if case .impossible(let reason) = Drive.plan(transition, in: flow) {
                walker.skip(scenario.transitions[...], reason: VerdictMessage(.notRun, quoting: reason, text: reason.english, as: "reason"))
                return ItemResult(id: id, flowID: flow.id, kind: .scenario, title: title, verdict: .notExecutable, keyed: reason, scenario: info, steps: walker.results)
            }
        }
        for (index, transition) in scenario.transitions.enumerated() {
            if await !walker.run(transition) {
                walker.skip(scenario.transitions[(index + 1)...], reason: VerdictMessage(.afterFailure, ["step": String(transition.from)]))
                break
            }
        }
        return await walker.attachProviderRequests(Self.conclude(id: id, flow: flow, kind: .scenario, title: title, steps: walker.results, scenario: info))
    }

    /// Item verdict from step verdicts: a failure or error wins; a path on which nothing the
    /// backend does was checked is not executable, never a pass.
    static func conclude(id: String, flow: Flow, kind: ItemResult.Kind, title: String, steps: [StepResult], scenario: ScenarioInfo? = nil, tokenCase: TokenCaseInfo? = nil) -> ItemResult {
        let backendKinds: Set<String> = [StepKind.request.rawValue, StepKind.providerCall.rawValue, StepKind.providerMessage.rawValue]
        let firstBad = steps.first { $0.verdict.failsRun }
        let verdict: Verdict
        let message: VerdictMessage?
        if let firstBad {
            verdict = firstBad.verdict
            message = VerdictMessage(.stepFailed, ["step": String(firstBad.step)], quoting: firstBad.keyedMessage, text: firstBad.message ?? firstBad.verdict.rawValue)
        } else if steps.contains(where: { $0.verdict == .pass && backendKinds.contains($0.kind) }) {
            verdict = .pass
            message = nil
        } else {
            verdict = .notExecutable
            message = VerdictMessage(.nothingOfTheBackend)
        }
        return ItemResult(id: id, flowID: flow.id, kind: kind, title: title, verdict: verdict, keyed: message, scenario: scenario,
                          tokenCase: tokenCase, steps: steps, evidence: firstBad?.evidence)
    }

    // MARK: Token cases

    /// The path a token case walks: the first scenario through the rule's step that the
    /// checker can drive, preferring one that ends in success.
    static func path(through stepNumber: Int, in flow: Flow) -> Scenario? {
        let scenarios = StateMachine(flow: flow).scenarios(flowID: flow.id).filter { scenario in
            scenario.steps.contains(stepNumber) && scenario.transitions.allSatisfy {
                if case .impossible = Drive.plan($0, in: flow) { return false }
                if case .provider(let outcome) = Drive.plan($0, in: flow) { return outcome == .approved }
                return true
            }
        }
        return scenarios.first { $0.outcome == .success } ?? scenarios.first
    }

    func runTokenCase(_ work: TokenCaseWork, id: String, flow: Flow) async -> ItemResult {
        let tokenCase = work.tokenCase
        let info = TokenCaseInfo(
            rule: work.rule.id, rulePosition: work.rulePosition, caseID: tokenCase.id, variant: work.variant,
            variantDescription: work.variantDescription, expectation: tokenCase.expectation.rawValue, step: work.rule.step,
            conformanceID: tokenCase.conformanceID)
        let title = "\(tokenCase.id) \(work.variantDescription ?? tokenCase.title)"
        func notExecutable(_ why: VerdictMessage, steps: [StepResult] = []) -> ItemResult {
            ItemResult(id: id, flowID: flow.id, kind: .tokenCase, title: title, verdict: .notExecutable, keyed: why, tokenCase: info, steps: steps)
        }
        guard work.rule.step != nil else {
            return notExecutable(VerdictMessage(.ruleNamesNoStep))
        }
        guard let stepNumber = TokenSuiteCase.submittingStep(for: work, in: flow), let step = flow.step(stepNumber) else {
            var message = VerdictMessage(.noStepSubmits, ["variant": work.variantDescription ?? tokenCase.title])
            if let key = TokenSuiteCase.variantTextKey(work) { message.args["variant.key"] = key }
            return notExecutable(message)
        }
        guard let path = Self.path(through: stepNumber, in: flow) else {
            return notExecutable(VerdictMessage(.noDrivablePath, ["step": String(stepNumber)]))
        }
        guard let position = path.transitions.firstIndex(where: { $0.from == stepNumber }),
              case .send(let template, let expectation) = Drive.plan(path.transitions[position], in: flow) else {
            return notExecutable(VerdictMessage(.noSendableRequest, ["step": String(stepNumber)]))
        }
        // Key rotation (P5, P6) proves a refetch only if the backend already holds the JWKS: an
        // honest sign-in through the same step first, so `--case P5` alone gives the verdict of
        // a full run (where earlier cases warmed the cache).
        if ["P5", "P6"].contains(tokenCase.id) {
            var baseline = Walker(env: env, flow: flow)
            for transition in path.transitions[...position] where await !baseline.run(transition) {
                var result = Self.conclude(id: id, flow: flow, kind: .tokenCase, title: title, steps: baseline.results, tokenCase: info)
                result.keyedMessage = VerdictMessage(.baselineSignInFailed, quoting: result.keyedMessage, text: result.message ?? "")
                return await baseline.attachProviderRequests(result)
            }
        }
        var walker = Walker(env: env, flow: flow)
        let suite = TokenSuiteCase(work: work, flow: flow, step: step, template: template, expectation: expectation, path: path, position: position)
        if case .variant = suite.forgery, suite.target == .notification, !suite.forgery.canApply(to: .notification) {
            // Nonce and replay cases are about ID tokens; posting an honest notification instead
            // would judge the backend on the wrong token.
            return notExecutable(VerdictMessage(.forgeryNotForNotification, ["forgery": "\(suite.forgery)"]))
        }
        if case .variant = suite.forgery, suite.target == .idToken { walker.forgery = suite.forgery }

        // Walk to the step that submits the token.
        for (index, transition) in path.transitions[..<position].enumerated() {
            if await !walker.run(transition) {
                walker.skip(path.transitions[(index + 1)...], reason: VerdictMessage(.afterFailure, ["step": String(transition.from)]))
                var result = Self.conclude(id: id, flow: flow, kind: .tokenCase, title: title, steps: walker.results, tokenCase: info)
                result.keyedMessage = VerdictMessage(.couldNotReachStep, ["step": String(stepNumber)], quoting: result.keyedMessage, text: result.message ?? "")
                return await walker.attachProviderRequests(result)
            }
        }
        let outcome = await suite.execute(&walker)
        // Evidence goes with failing, inconclusive and informational items only, made once the
        // provider's records have settled the verdict (a passing rejection may turn inconclusive).
        let keeps = outcome.verdict.failsRun || outcome.verdict == .info
        var result = await walker.attachProviderRequests(ItemResult(
            id: id, flowID: flow.id, kind: .tokenCase, title: title, verdict: outcome.verdict, message: outcome.message, keyed: outcome.keyed,
            tokenCase: info, steps: walker.results, evidence: keeps ? outcome.evidence?.make() : nil))
        if !result.verdict.failsRun, result.verdict != .info {
            result.evidence = nil
        } else if !keeps, let draft = outcome.evidence {
            // Turned inconclusive: the submission's evidence, then what the provider's records added.
            var evidence = draft.make()
            evidence.providerRequests += result.evidence?.providerRequests ?? []
            evidence.notes += result.evidence?.notes ?? []
            result.evidence = evidence
        }
        return result
    }
}
