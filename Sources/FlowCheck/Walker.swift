import FlowMocks
import FlowParser
import FlowModel
import Foundation
import JOSE

/// Walks one path through a flow for one work item: holds the values (variables, captures,
/// provider values), the sign-in of this item, and the step results so far.
struct Walker {
    let env: RunEnvironment
    let flow: Flow
    let clientID: String
    /// The forgery applied to the ID token this item signs in with.
    var forgery: TokenForgery = .none
    var values: [String: String]
    var signIn: ProviderSignIn?
    var user: MockUser
    var rawNonce: String
    var results: [StepResult] = []
    /// The last request sent and its result (for token cases).
    var lastRequest: OutgoingRequest?
    var lastResult: HTTPResult?
    /// Provider records already attributed to a step of this item.
    var consumedRecords: Set<Int> = []
    /// The last token or notification JWT submitted, for evidence.
    var submittedToken: String?

    /// The provider of this flow, if it names one.
    let link: FlowProvider?

    init(env: RunEnvironment, flow: Flow) {
        self.env = env
        self.flow = flow
        self.link = env.providers[flow.id]
        var values: [String: String] = [:]
        for variable in flow.variables { values[variable.name] = variable.value }
        self.values = values
        self.clientID = values["client_id"] ?? env.defaultClientID
        self.user = link.map { MockUser.random(using: env.random, profile: $0.profile) } ?? MockUser.random(using: env.random)
        self.rawNonce = Base64URL.encode(env.random.bytes(24))
    }

    func provider() throws -> MockProvider {
        guard let link else { throw NoProvider(flowID: flow.id) }
        return link.provider
    }

    var interpolator: Interpolator { Interpolator(values: values) }

    // MARK: Provider values

    /// Signs in at the provider (once per item) with this item's fresh user and nonce.
    mutating func ensureSignIn() async throws -> ProviderSignIn {
        if let signIn, signIn.outcome == .approved { return signIn }
        let mock = try provider()
        let result = await mock.signIn(clientID: clientID, rawNonce: rawNonce, user: user, forgery: forgery, outcome: .approved, nonce: link?.nonce ?? .verbatim)
        env.signIns?.note(result.code, at: mock)
        signIn = result
        for (name, value) in result.placeholderValues { values[name] = value }
        return result
    }

    /// Supplies the provider values a template uses, signing in or minting as needed.
    mutating func supplyProviderValues(for template: RequestTemplate, step: Step, notificationForgery: TokenForgery = .none, event: NotificationEvent.Kind? = nil, jti: String? = nil) async throws {
        let names = Set(Interpolator.names(in: template.target) + template.headers.flatMap { Interpolator.names(in: $0.value) }
            + Interpolator.names(in: template.body ?? ""))
        let signInNames: Set<String> = ["provider.code", "provider.id_token", "provider.nonce", "provider.state", "provider.email", "provider.sub", "provider.user"]
        if !names.isDisjoint(with: signInNames) {
            _ = try await ensureSignIn()
        }
        if names.contains("provider.notification") {
            let kind = event ?? Self.notificationKind(for: step)
            let notification = NotificationEvent(kind: kind, sub: (signIn?.user ?? user).sub, email: (signIn?.user ?? user).email, isPrivateEmail: kind == .emailDisabled || kind == .emailEnabled ? true : nil, jti: jti)
            let jwt = try await provider().mintNotification(clientID: clientID, event: notification, forgery: notificationForgery)
            values["provider.notification"] = jwt
            submittedToken = jwt
        } else if names.contains("provider.id_token") {
            submittedToken = values["provider.id_token"]
        }
        if names.contains("provider.refresh_token"), values["provider.refresh_token"] == nil {
            let sub = (signIn?.user ?? user).sub
            if let token = try await provider().refreshTokens(for: sub).first { values["provider.refresh_token"] = token }
        }
    }

    /// The event a notification step is about, read from its title or prose (`consent-revoked`…).
    static func notificationKind(for step: Step) -> NotificationEvent.Kind {
        let text = (step.title + " " + step.prose.source).lowercased()
        // Longest names first: `account-delete` is a prefix of `account-deleted`.
        for kind in [NotificationEvent.Kind.consentRevoked, .accountDelete, .emailDisabled, .emailEnabled] where text.contains(kind.rawValue) {
            return kind
        }
        return .consentRevoked
    }

    // MARK: Steps

    /// Sends a request step and judges it. Returns the step result (also appended).
    @discardableResult
    mutating func send(step: Step, template: RequestTemplate, expectation: Expectation?, branch: String?) async -> StepResult {
        let kind = flow.kind(of: step).rawValue
        let request: OutgoingRequest
        do {
            try await supplyProviderValues(for: template, step: step)
            request = try interpolator.request(template, baseURL: env.backendURL)
        } catch {
            let result = StepResult(step: step.number, title: step.title, kind: kind, branch: branch, verdict: .error, keyed: VerdictMessage(.cannotBuildRequest, ["error": "\(error)"]))
            results.append(result)
            return result
        }
        return await send(step: step, request: request, expectation: expectation, branch: branch)
    }

    @discardableResult
    mutating func send(step: Step, request: OutgoingRequest, expectation: Expectation?, branch: String?) async -> StepResult {
        let response = await env.transport.send(request, timeout: env.timeout)
        lastRequest = request
        lastResult = response
        let check = ExpectationCheck(expectation: expectation, response: response, interpolator: interpolator)
        for (name, value) in check.captures { values[name] = value }
        let verdict: Verdict = check.passed ? .pass : .fail
        // Redacted evidence only for a step that failed: a passed step keeps none.
        var result = StepResult(
            step: step.number, title: step.title, kind: flow.kind(of: step).rawValue, branch: branch, verdict: verdict,
            message: check.problems.joined(separator: "; "),
            evidence: check.passed ? nil : Self.evidence(request: request, response: response, token: submittedToken))
        if check.passed {
            result.keyedMessage = VerdictMessage(.requestAnswered, ["method": request.method, "path": Self.path(of: request.url), "status": String(response.status ?? 0)])
        } else {
            result.keyedMessage = check.summary
        }
        results.append(result)
        return result
    }

    static func path(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return Redaction.text(components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }

    static func evidence(request: OutgoingRequest?, response: HTTPResult?, token: String?, notes: [String] = []) -> Evidence {
        var evidence = Evidence(notes: notes)
        if let request {
            evidence.request = RequestEvidence(
                method: request.method, url: Redaction.text(request.url), headers: Redaction.headers(request.headers),
                bodyExcerpt: request.body.flatMap(Redaction.excerpt))
        }
        if let response {
            evidence.response = ResponseEvidence(
                status: response.status, headers: Redaction.headers(response.headers), bodyExcerpt: Redaction.excerpt(response.body),
                bodyBytes: response.body.count, truncated: response.truncated, elapsedMS: response.elapsedMS,
                failure: response.failure?.description)
        }
        if let token { evidence.token = Redaction.decodeToken(token) }
        return evidence
    }

    /// Simulates a person/client ↔ provider step.
    mutating func simulate(step: Step, outcome: AuthorizeOutcome, branch: String?) async {
        let kind = flow.kind(of: step).rawValue
        do {
            if outcome == .approved {
                let result = try await ensureSignIn()
                let ok = result.code != nil || result.idToken != nil
                results.append(StepResult(
                    step: step.number, title: step.title, kind: kind, branch: branch, verdict: ok ? .pass : .error,
                    keyed: VerdictMessage(ok ? .providerApproved : .providerIssuedNothing)))
            } else {
                let mock = try provider()
                let result = await mock.signIn(clientID: clientID, rawNonce: rawNonce, user: user, forgery: .none, outcome: outcome, nonce: link?.nonce ?? .verbatim)
                env.signIns?.note(result.code, at: mock)
                let ok = result.code == nil && result.idToken == nil
                results.append(StepResult(
                    step: step.number, title: step.title, kind: kind, branch: branch, verdict: ok ? .pass : .error,
                    keyed: ok ? VerdictMessage(.providerRefused, ["outcome": outcome.rawValue, "error": result.error ?? "no code issued"]) : VerdictMessage(.providerIssuedCode, ["outcome": outcome.rawValue])))
            }
        } catch {
            results.append(StepResult(step: step.number, title: step.title, kind: kind, branch: branch, verdict: .error, keyed: VerdictMessage(.providerError, ["error": "\(error)"])))
        }
    }

    enum ExpectedCall: String {
        case codeExchange = "code exchange (grant_type=authorization_code)"
        case refresh = "refresh (grant_type=refresh_token)"
        case revoke = "revoke (/auth/revoke)"
    }

    /// What a backend → provider step is, from the technical words in its title and prose.
    static func expectedCall(for step: Step) -> ExpectedCall {
        let text = (step.title + " " + step.prose.source).lowercased()
        if text.utf8Contains("revoke") { return .revoke }
        if text.utf8Contains("grant_type=refresh_token") { return .refresh }
        return .codeExchange
    }

    /// Observes a backend → provider step in the provider's records and asserts it was made
    /// correctly (right endpoint and grant, this item's code or tokens, a valid client_secret).
    mutating func observe(step: Step, branch: String?) async {
        let kind = flow.kind(of: step).rawValue
        let call = Self.expectedCall(for: step)
        guard let signIn, let code = signIn.code, let provider = link?.provider else {
            results.append(StepResult(step: step.number, title: step.title, kind: kind, branch: branch, verdict: .notExecutable,
                                      keyed: VerdictMessage(.nothingToObserve, ["call": call.rawValue])))
            return
        }
        let elidedCode = Secret.elide(code)
        let sub = signIn.user.sub
        let deadline = ContinuousClock.now + .milliseconds(Int(env.observeWait * 1000))
        var match: RecordedRequest?
        var candidates: [RecordedRequest] = []
        while true {
            let refresh = Set(await provider.refreshTokens(for: sub).map { Secret.elide($0) })
            let records = await provider.records(carrying: refresh.union([elidedCode])).filter { !consumedRecords.contains($0.sequence) }
            candidates = records.filter { record in
                switch call {
                case .codeExchange:
                    return record.endpoint == .token && record.fields["code"] == elidedCode
                case .refresh:
                    return record.endpoint == .token && record.grantType == "refresh_token"
                        && record.fields["refresh_token"].map(refresh.contains) == true
                case .revoke:
                    return record.endpoint == .revoke && record.fields["token"].map(refresh.contains) == true
                }
            }
            match = candidates.first { $0.status == 200 && ($0.clientSecret?.isValid ?? false) } ?? candidates.first
            if match?.status == 200 && (match?.clientSecret?.isValid ?? false) { break }
            if ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        var problems: [VerdictMessage] = []
        if let match {
            consumedRecords.insert(match.sequence)
            if call == .codeExchange, match.grantType != "authorization_code" {
                problems.append(VerdictMessage(.grantTypeUnexpected, ["grant_type": match.grantType ?? "missing"]))
            }
            if let violations = match.clientSecret?.violations, !violations.isEmpty {
                problems.append(VerdictMessage(.clientSecretViolations, ["violations": violations.map(\.rawValue).joined(separator: ", ")]))
            } else if match.clientSecret == nil {
                problems.append(VerdictMessage(.noClientSecret))
            }
            if match.clientID != clientID {
                problems.append(VerdictMessage(.clientIDUnexpected, ["client_id": match.clientID ?? "missing", "expected": clientID]))
            }
            if match.status != 200 {
                problems.append(VerdictMessage(.providerAnswered, ["status": "\(match.status)\(match.error.map { " \($0)" } ?? "")"]))
            }
        } else {
            problems.append(VerdictMessage(.callNeverMade, ["call": call.rawValue, "seconds": TransportFailure.format(env.observeWait)]))
        }
        let evidence = Evidence(providerRequests: (match.map { [$0] } ?? candidates).map(Self.providerEvidence))
        var result = StepResult(
            step: step.number, title: step.title, kind: kind, branch: branch, verdict: problems.isEmpty ? .pass : .fail,
            evidence: problems.isEmpty ? nil : evidence)
        result.keyedMessage = problems.isEmpty ? VerdictMessage(.providerCallObserved, ["call": call.rawValue]) : VerdictMessage.list(problems)
        results.append(result)
    }

    static func providerEvidence(_ record: RecordedRequest) -> ProviderRequestEvidence {
        ProviderRequestEvidence(
            method: record.method, path: record.path, endpoint: record.endpoint.rawValue, grantType: record.grantType,
            status: record.status, error: record.error, errorDescription: record.errorDescription,
            clientSecretViolations: record.clientSecret?.violations.map(\.rawValue) ?? [],
            fields: record.fields)
    }

    /// Runs one transition; returns false when the walk must stop (a failure).
    mutating func run(_ transition: StateMachine.Transition) async -> Bool {
        guard let step = flow.step(transition.from) else { return false }
        let branch = transition.label
        let kind = flow.kind(of: step)
        switch Drive.plan(transition, in: flow) {
        case .passive:
            results.append(StepResult(step: step.number, title: step.title, kind: kind.rawValue, branch: branch, verdict: .notExecutable, keyed: Self.passiveReason(kind)))
        case .impossible(let reason):
            results.append(StepResult(step: step.number, title: step.title, kind: kind.rawValue, branch: branch, verdict: .notExecutable, keyed: reason))
        case .provider(let outcome):
            await simulate(step: step, outcome: outcome, branch: branch)
        case .send(let template, let expectation):
            await send(step: step, template: template, expectation: expectation, branch: branch)
        case .observe:
            await observe(step: step, branch: branch)
        }
        return !(results.last?.verdict.failsRun ?? false)
    }

    static func passiveReason(_ kind: StepKind) -> VerdictMessage {
        switch kind {
        case .ui: VerdictMessage(.passiveUI)
        case .response: VerdictMessage(.passiveResponse)
        case .internal: VerdictMessage(.passiveInternal)
        case .undescribedRequest: VerdictMessage(.passiveNoHTTP)
        case .providerMessage: VerdictMessage(.passiveProviderMessage)
        default: VerdictMessage(.passiveOther)
        }
    }

    /// Marks the remaining transitions of a path as skipped after a failure.
    mutating func skip(_ transitions: ArraySlice<StateMachine.Transition>, reason: VerdictMessage) {
        for transition in transitions {
            guard let step = flow.step(transition.from) else { continue }
            results.append(StepResult(step: step.number, title: step.title, kind: flow.kind(of: step).rawValue, branch: transition.label, verdict: .skipped, keyed: reason))
        }
    }
}

extension Walker {
    /// The provider calls this item's sign-in caused (its code exchanged, its user's refresh
    /// tokens used or revoked), secrets elided; nil when the item signed in nowhere.
    func providerRequests() async -> [ProviderRequestEvidence]? {
        guard let provider = link?.provider, let signIn else { return nil }
        let code = signIn.code.map { Secret.elide($0) }
        let refresh = Set(await provider.refreshTokens(for: signIn.user.sub).map { Secret.elide($0) })
        return await provider.records(carrying: refresh.union(code.map { [$0] } ?? [])).filter { record in
            (code != nil && record.fields["code"] == code)
                || record.fields["refresh_token"].map(refresh.contains) == true || record.fields["token"].map(refresh.contains) == true
        }.map(Self.providerEvidence)
    }

    /// Whether some request of the flow posts the authorization code (so the backend must
    /// exchange it).
    var flowPostsCode: Bool {
        flow.steps.contains { step in
            guard let request = step.exchange?.request else { return false }
            let text = request.target + request.headers.map(\.value).joined() + (request.body ?? "")
            return Interpolator.names(in: text).contains("provider.code")
        }
    }

    /// A failing item carries the provider calls its sign-in caused, and the root cause they
    /// show (`cause`): what the backend did, or did not do, at the provider is evidence. A
    /// reject case that passed keeps them aside for the baseline gate, and is inconclusive at
    /// once when they show the provider refused the backend's own call (its credentials, its
    /// redirect_uri): then the rejection says nothing about the token.
    func attachProviderRequests(_ result: ItemResult) async -> ItemResult {
        let isRejectCase = result.tokenCase?.expectation == CaseExpectation.reject.rawValue
        guard result.verdict.failsRun || (isRejectCase && result.verdict == .pass), let requests = await providerRequests() else { return result }
        var result = result
        if result.verdict == .pass {
            guard let refusal = ProviderDiagnosis.configurationRefusal(requests) else {
                result.heldProviderRequests = requests
                return result
            }
            result.verdict = .inconclusive
            result.keyedMessage = VerdictMessage(.inconclusiveProviderRefused, ["refusal": refusal], quoting: result.keyedMessage, text: result.message ?? "rejected")
            result.cause = refusal
        }
        var evidence = result.evidence ?? Evidence()
        if evidence.providerRequests.isEmpty {
            evidence.providerRequests = requests
            if requests.isEmpty {
                evidence.notes.append("the backend made no call to the provider with this sign-in's code or refresh tokens")
            }
        }
        result.evidence = evidence
        if result.cause == nil { result.cause = ProviderDiagnosis.cause(requests, expectsExchange: flowPostsCode && signIn?.code != nil) }
        return result
    }
}
