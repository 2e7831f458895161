import FlowMocks
import FlowModel
import JOSE
import Foundation

/// One token case at the step that submits the token: how it is sent, and what counts as the
/// backend enforcing the rule. "Reject" = a 4xx, never a 5xx, and nothing usable handed out
/// (proved by trying to use it); "accept" = the step's expectation holds and the rest of the
/// path works with what it returned.
struct TokenSuiteCase {
    let work: TokenCaseWork
    let flow: Flow
    let step: Step
    let template: RequestTemplate
    let expectation: Expectation?
    let path: Scenario
    let position: Int

    init(work: TokenCaseWork, flow: Flow, step: Step, template: RequestTemplate, expectation: Expectation?, path: Scenario, position: Int) {
        self.work = work
        self.flow = flow
        self.step = step
        self.template = template
        self.expectation = expectation
        self.path = path
        self.position = position
    }

    var caseID: String { work.tokenCase.id }

    /// The token mutation of this variant (`.none` for honest runs), chosen by the planner for
    /// the flow's provider profile.
    var forgery: TokenForgery { work.forgery ?? .none }

    /// Whether the rule is about the server-to-server notification rather than the ID token.
    var ruleIsNotification: Bool { work.rule.token.lowercased().utf8Contains("notification") }

    /// Which artefact the forgery goes into.
    var target: ForgeryTarget {
        if caseID == "C17" || caseID == "N2" || caseID == "N1" { return caseID == "N1" ? .notification : forgery.target }
        return ruleIsNotification ? .notification : .idToken
    }

    /// The placeholder that carries this case's artefact.
    var placeholder: String { target == .notification ? "provider.notification" : "provider.id_token" }

    /// The step that must receive the artefact: the rule's step, unless the case's artefact is
    /// of the other kind than the rule's (C17) or the rule is about notifications and its step
    /// does not post one; then the first step that submits that artefact. Nil when none does.
    static func submittingStep(for work: TokenCaseWork, in flow: Flow) -> Int? {
        guard let number = work.rule.step, let step = flow.step(number) else { return nil }
        let probe = TokenSuiteCase(work: work, flow: flow, step: step, template: step.exchange?.request ?? RequestTemplate(method: "GET", target: "/", location: step.location), expectation: nil, path: Scenario(flowID: flow.id, index: 0, transitions: [], outcome: .success), position: 0)
        let redirect = (probe.target == .notification || probe.caseID == "C17") && !(step.exchange.map { probe.usesName(probe.placeholder, $0.request) } ?? false)
        guard redirect else { return number }
        return flow.steps.sorted { $0.number < $1.number }.first { $0.exchange.map { probe.usesName(probe.placeholder, $0.request) } ?? false }?.number
    }

    func usesName(_ name: String, _ template: RequestTemplate) -> Bool {
        let text = template.target + template.headers.map(\.value).joined() + (template.body ?? "")
        return Interpolator.names(in: text).contains(name)
    }

    func execute(_ walker: inout Walker) async -> Outcome {
        let tokenCase = work.tokenCase
        let submitStep = step
        let submitTemplate = template
        let submitExpectation = expectation
        switch caseID {
        case "X1", "X2", "X3":
            return await exchangeCase(&walker, step: submitStep, template: submitTemplate)
        case "N1":
            return await notificationEvents(&walker, step: submitStep, template: submitTemplate, expectation: submitExpectation)
        case "C15":
            return await replay(&walker, step: submitStep, template: submitTemplate, expectation: submitExpectation)
        case "C19":
            return await nonceLeftOut(&walker, step: submitStep, template: submitTemplate, expectation: submitExpectation)
        case "R1":
            return await revocation(&walker, step: submitStep, template: submitTemplate, expectation: submitExpectation)
        default:
            break
        }
        let attackerBefore = await attackerFetches(walker)
        let notificationForgery = target == .notification ? forgery : .none
        // A forged notification that must be refused announces an event that ends the user's
        // sessions, so accepting it is observable on the session afterwards.
        let event: NotificationEvent.Kind? = target == .notification && tokenCase.expectation == .reject ? .consentRevoked : nil
        let sent = await submit(&walker, step: submitStep, template: submitTemplate, notificationForgery: notificationForgery, event: event)
        guard let response = sent else {
            return Outcome.unsent(walker)
        }
        let evidence = EvidenceDraft(request: walker.lastRequest, response: response, token: walker.submittedToken)
        switch tokenCase.expectation {
        case .accept:
            return await accept(&walker, step: submitStep, response: response, expectation: submitExpectation, evidence: evidence)
        case .informational:
            let status = response.status.map(String.init) ?? response.failure?.code ?? "no answer"
            let accepted = response.status.map { (200..<300).contains($0) } ?? false
            return Outcome(verdict: .info, keyed: VerdictMessage(accepted ? .informationalAccepted : .informationalRejected, ["status": status]), evidence: evidence)
        case .reject:
            var outcome = await reject(&walker, step: submitStep, response: response, expectation: submitExpectation, evidence: evidence)
            if caseID == "S8", outcome.verdict == .pass {
                let fetched = await attackerFetches(walker) - attackerBefore
                if fetched > 0 {
                    outcome = Outcome(verdict: .fail, keyed: VerdictMessage(.rejectedButKeyFetched, ["count": String(fetched)]), evidence: evidence)
                }
            }
            if target == .notification, outcome.verdict == .pass, let probe = await sessionProbe(&walker, after: submitStep) {
                if !probe.works {
                    outcome = Outcome(verdict: .fail, keyed: Use.quoted(.rejectedButStateChanged, probe), evidence: evidence)
                }
            }
            return outcome
        }
    }

    /// Sends the submitting step (fresh provider values) and records it.
    func submit(_ walker: inout Walker, step: Step, template: RequestTemplate, notificationForgery: TokenForgery = .none, event: NotificationEvent.Kind? = nil, jti: String? = nil) async -> HTTPResult? {
        let request: OutgoingRequest
        do {
            try await walker.supplyProviderValues(for: template, step: step, notificationForgery: notificationForgery, event: event, jti: jti)
            request = try walker.interpolator.request(template, baseURL: walker.env.backendURL)
        } catch {
            walker.results.append(StepResult(step: step.number, title: step.title, kind: flow.kind(of: step).rawValue, verdict: .error, keyed: VerdictMessage(.cannotBuildRequest, ["error": "\(error)"])))
            return nil
        }
        let response = await walker.env.transport.send(request, timeout: walker.env.timeout)
        walker.lastRequest = request
        walker.lastResult = response
        return response
    }

    func record(_ walker: inout Walker, step: Step, verdict: Verdict, message: VerdictMessage, evidence: EvidenceDraft?) {
        walker.results.append(StepResult(step: step.number, title: step.title, kind: flow.kind(of: step).rawValue, verdict: verdict, keyed: message, evidence: verdict.failsRun ? evidence?.make() : nil))
    }

    // MARK: Accept

    func accept(_ walker: inout Walker, step: Step, response: HTTPResult, expectation: Expectation?, evidence: EvidenceDraft) async -> Outcome {
        let check = ExpectationCheck(expectation: expectation, response: response, interpolator: walker.interpolator)
        for (name, value) in check.captures { walker.values[name] = value }
        guard check.passed else {
            let message = VerdictMessage(.validTokenNotAccepted, quoting: check.summary, text: check.summary.english, as: "problems")
            record(&walker, step: step, verdict: .fail, message: message, evidence: evidence)
            return Outcome(verdict: .fail, keyed: message, evidence: evidence)
        }
        record(&walker, step: step, verdict: .pass, message: VerdictMessage(.accepted, [:], quoting: Self.describe(response), text: Self.describe(response).english, as: "response"), evidence: nil)
        // What it returned must work: walk the rest of the path.
        if step.number == self.step.number {
            for transition in path.transitions[(position + 1)...] {
                if await !walker.run(transition) {
                    let failed = walker.results.last!
                    return Outcome(verdict: .fail, keyed: VerdictMessage(.acceptedThenFailed, ["step": String(failed.step)], quoting: failed.keyedMessage, text: failed.message ?? ""), evidence: failed.evidence.map(EvidenceDraft.init))
                }
            }
        }
        return Outcome(verdict: .pass, keyed: VerdictMessage(.acceptedAndPathWorks, [:], quoting: Self.describe(response), text: Self.describe(response).english, as: "response"))
    }

    // MARK: Reject

    func reject(_ walker: inout Walker, step: Step, response: HTTPResult, expectation: Expectation?, evidence: EvidenceDraft) async -> Outcome {
        // Take whatever a success would have returned, even from a rejection.
        let check = ExpectationCheck(expectation: expectation, response: response, interpolator: walker.interpolator)
        for (name, value) in check.captures { walker.values[name] = value }
        let captured = check.captures.keys.sorted()
        guard let status = response.status else {
            let message = VerdictMessage(.noClearRejection, [:], quoting: Self.describe(response), text: Self.describe(response).english, as: "response")
            record(&walker, step: step, verdict: .fail, message: message, evidence: evidence)
            return Outcome(verdict: .fail, keyed: message, evidence: evidence)
        }
        let code = String(status)
        var message: VerdictMessage
        var verdict: Verdict
        switch status {
        case 400..<500:
            verdict = .pass
            message = VerdictMessage(.rejected, ["status": code])
        case 500..<600:
            verdict = .fail
            message = VerdictMessage(.serverErrorNotRejection, ["status": code])
        case 200..<300:
            verdict = .fail
            message = VerdictMessage(.acceptedRuleNotEnforced, ["status": code, "rule": work.rule.id])
        default:
            verdict = .fail
            message = VerdictMessage((300..<400).contains(status) ? .redirectNotRejection : .statusNotRejection, ["status": code])
        }
        // Prove nothing usable was created: use what it returned on the next step that needs it.
        if !captured.isEmpty, let use = await useCaptured(&walker, names: Set(captured), after: step) {
            if use.works {
                verdict = .fail
                message = VerdictMessage(.returnedWorks, quoting: message, text: message.english, as: "verdict")
                message.quote(use.message, as: "use")
            } else if message.key == .rejected {
                message = VerdictMessage(.rejectedReturnedRefused, ["status": code])
                message.quote(use.message, as: "use")
            } else {
                message = VerdictMessage(.returnedRefused, quoting: message, text: message.english, as: "verdict")
                message.quote(use.message, as: "use")
            }
        } else if verdict == .pass {
            message = VerdictMessage(.rejectedNothingUsable, ["status": code])
        }
        record(&walker, step: step, verdict: verdict, message: message, evidence: evidence)
        return Outcome(verdict: verdict, keyed: message, evidence: evidence)
    }

    // MARK: Special cases

    /// C15: the same id_token and nonce posted twice: the first is accepted, the second refused.
    /// Variant 0 posts the second with a fresh code for the same sign-in, so only the backend's
    /// own replay check can refuse it; variant 1 repeats the request byte for byte (the used
    /// code is refused by the provider, so a backend without a replay check passes it too).
    func replay(_ walker: inout Walker, step: Step, template: RequestTemplate, expectation: Expectation?) async -> Outcome {
        guard let first = await submit(&walker, step: step, template: template) else {
            return Outcome.unsent(walker)
        }
        let firstRequest = walker.lastRequest!
        let firstCheck = ExpectationCheck(expectation: expectation, response: first, interpolator: walker.interpolator)
        guard firstCheck.passed else {
            let evidence = EvidenceDraft(request: firstRequest, response: first, token: walker.submittedToken)
            let message = VerdictMessage(.firstSubmissionNotAccepted, quoting: firstCheck.summary, text: firstCheck.summary.english, as: "problems")
            record(&walker, step: step, verdict: .fail, message: message, evidence: evidence)
            return Outcome(verdict: .fail, keyed: message, evidence: evidence)
        }
        var secondRequest = firstRequest
        var note = "second submission of the identical request (same id_token, nonce and code)"
        let postsCode = usesName("provider.code", template)
        if (work.variant ?? 0) == 0, postsCode, let signIn = walker.signIn, let provider = try? walker.provider() {
            let fresh = await provider.freshCode(for: signIn, clientID: walker.clientID)
            walker.env.signIns?.note(fresh, at: provider)
            var values = walker.values
            values["provider.code"] = fresh
            if let rebuilt = try? Interpolator(values: values).request(template, baseURL: walker.env.backendURL) {
                secondRequest = rebuilt
                note = "second submission of the same id_token and nonce, with a fresh code for the same sign-in"
            }
        } else if (work.variant ?? 0) == 1, !postsCode {
            return Outcome(verdict: .notExecutable, keyed: VerdictMessage(.stepPostsNoCode, ["step": String(step.number)]))
        }
        let second = await walker.env.transport.send(secondRequest, timeout: walker.env.timeout)
        walker.lastRequest = secondRequest
        walker.lastResult = second
        let evidence = EvidenceDraft(request: secondRequest, response: second, token: walker.submittedToken, notes: [note])
        var outcome = await reject(&walker, step: step, response: second, expectation: expectation, evidence: evidence)
        outcome.say(VerdictMessage(.replay, quoting: outcome.keyed, text: outcome.message))
        return outcome
    }

    /// C19: the honest ID token (its `nonce` claim is this sign-in's) posted with the request's
    /// nonce member left out (variant 0), empty (1) or `null` (2). Only a backend that requires
    /// the nonce it compares with refuses all three.
    func nonceLeftOut(_ walker: inout Walker, step: Step, template: RequestTemplate, expectation: Expectation?) async -> Outcome {
        let variant = forgery.index ?? 0
        guard let mutated = Self.template(template, nonce: variant) else {
            return Outcome(verdict: .notExecutable, keyed: VerdictMessage(.stepPostsNoNonce, ["step": String(step.number)]))
        }
        guard let response = await submit(&walker, step: step, template: mutated) else {
            return Outcome.unsent(walker)
        }
        let note = ["the nonce member left out of the request", "the nonce member sent empty", "the nonce member sent as null"][min(variant, 2)]
            + "; the ID token carries this sign-in's nonce"
        let evidence = EvidenceDraft(request: walker.lastRequest, response: response, token: walker.submittedToken, notes: [note])
        return await reject(&walker, step: step, response: response, expectation: expectation, evidence: evidence)
    }

    /// The request template with its top-level JSON member `"…": "{{provider.nonce}}"` removed
    /// (variant 0), emptied (1) or set to `null` (2); nil when the body has no such member.
    static func template(_ template: RequestTemplate, nonce variant: Int) -> RequestTemplate? {
        guard let body = template.body, let object = try? StrictJSON.parseObject(Array(body.utf8)),
            let member = object.members.first(where: { $0.value.stringValue.map { Interpolator.names(in: $0) == ["provider.nonce"] && $0.hasPrefix("{{") && $0.hasSuffix("}}") } ?? false })
        else { return nil }
        var mutated = JSONObject()
        for existing in object.members {
            guard existing.name == member.name else {
                mutated.append(existing.name, existing.value)
                continue
            }
            switch variant {
            case 0: continue
            case 1: mutated.append(existing.name, .string(""))
            default: mutated.append(existing.name, .null)
            }
        }
        var result = template
        result.body = String(decoding: mutated.jsonBytes(), as: UTF8.self)
        return result
    }

    /// X1–X3: the provider's token endpoint misbehaves while the step is submitted; the
    /// backend must refuse (4xx, no session), never 5xx.
    func exchangeCase(_ walker: inout Walker, step: Step, template: RequestTemplate) async -> Outcome {
        let overrides = TokenEndpointOverride.variants(for: caseID)
        let index = work.variant ?? 0
        guard overrides.indices.contains(index) else { return Outcome(verdict: .error, keyed: VerdictMessage(.noTokenEndpointBehaviour, ["case": caseID, "index": String(index)])) }
        let provider: MockProvider
        do {
            provider = try walker.provider()
            try await walker.supplyProviderValues(for: template, step: step)
        } catch {
            return Outcome(verdict: .error, keyed: VerdictMessage(.cannotBuildRequest, ["error": "\(error)"]))
        }
        await provider.setTokenEndpointOverride(overrides[index].override)
        let response = await submit(&walker, step: step, template: template)
        await provider.setTokenEndpointOverride(nil)
        guard let response else { return Outcome.unsent(walker) }
        let evidence = EvidenceDraft(request: walker.lastRequest, response: response, token: walker.submittedToken, notes: ["provider token endpoint: \(overrides[index].description)"])
        return await reject(&walker, step: step, response: response, expectation: expectation, evidence: evidence)
    }

    /// N1: every event type is accepted (twice, same jti: idempotent) and changes state as it
    /// should: consent-revoked and account-delete end the session, e-mail events do not.
    func notificationEvents(_ walker: inout Walker, step: Step, template: RequestTemplate, expectation: Expectation?) async -> Outcome {
        let kinds = NotificationEvent.Kind.allCases
        let kind = kinds[min(work.variant ?? 0, kinds.count - 1)]
        let jti = "flowspec-" + Redaction.elide(walker.rawNonce).dropLast()
        var evidence: EvidenceDraft?
        for attempt in 1...2 {
            guard let response = await submit(&walker, step: step, template: template, event: kind, jti: jti) else {
                return Outcome.unsent(walker)
            }
            let check = ExpectationCheck(expectation: expectation, response: response, interpolator: walker.interpolator)
            evidence = EvidenceDraft(request: walker.lastRequest, response: response, token: walker.submittedToken)
            guard check.passed else {
                let message = VerdictMessage(attempt == 2 ? .notificationResentProblems : .notificationProblems, ["kind": kind.rawValue], quoting: check.summary, text: check.summary.english, as: "problems")
                record(&walker, step: step, verdict: .fail, message: message, evidence: evidence)
                return Outcome(verdict: .fail, keyed: message, evidence: evidence)
            }
        }
        record(&walker, step: step, verdict: .pass, message: VerdictMessage(.notificationAcceptedTwice, ["kind": kind.rawValue]), evidence: nil)
        guard let probe = await sessionProbe(&walker, after: step) else {
            return Outcome(verdict: .pass, keyed: VerdictMessage(.notificationStateNotVerified, ["kind": kind.rawValue]))
        }
        let expectedWorks = !kind.endsSessions
        guard probe.works == expectedWorks else {
            var message = VerdictMessage(probe.works ? .notificationSessionStillWorks : .notificationSessionEnded, ["kind": kind.rawValue])
            message.quote(probe.message, as: "probe")
            return Outcome(verdict: .fail, keyed: message, evidence: evidence)
        }
        var message = VerdictMessage(expectedWorks ? .notificationSessionKept : .notificationSessionEndedAsItShould, ["kind": kind.rawValue])
        message.quote(probe.message, as: "probe")
        return Outcome(verdict: .pass, keyed: message)
    }

    /// R1: deleting the account revokes the user's Apple tokens with a valid client_secret.
    func revocation(_ walker: inout Walker, step: Step, template: RequestTemplate, expectation: Expectation?) async -> Outcome {
        let sent = await walker.send(step: step, template: template, expectation: expectation, branch: nil)
        guard sent.verdict == .pass else {
            return Outcome(verdict: sent.verdict, saying: sent)
        }
        let revokeStep = path.transitions[(position + 1)...].compactMap { flow.step($0.from) }
            .first { flow.kind(of: $0) == .providerCall && Walker.expectedCall(for: $0) == .revoke }
        guard let revokeStep else {
            return Outcome(verdict: .notExecutable, keyed: VerdictMessage(.noRevokeStep, ["step": String(step.number)]))
        }
        await walker.observe(step: revokeStep, branch: nil)
        let observed = walker.results.last!
        return Outcome(verdict: observed.verdict, keyed: VerdictMessage(.revokeOnDeletion, quoting: observed.keyedMessage, text: observed.message ?? ""), evidence: observed.evidence.map(EvidenceDraft.init))
    }

    func attackerFetches(_ walker: Walker) async -> Int {
        guard caseID == "S8" else { return 0 }
        guard let provider = try? walker.provider() else { return 0 }
        return await provider.attackerFetchCount()
    }
}
