import FlowModel
import FlowParser
import Foundation
import JOSE

/// Request handling: route matching, the request's contract, and the answer from the matched step or branch.
extension MockBackend {
    // MARK: Request handling

    public func handle(_ request: MockHTTPRequest) async -> MockHTTPResponse {
        guard let (fullRoute, _) = table.routes(for: request, fixed: [:]).first else {
            let response = MockHTTPResponse.error(404, "not_found", description: "no flow describes \(request.method) \(request.path)")
            answeredBy = nil
            lastReason = "no flow describes this route"
            record(request, response, flowIndex: nil, client: nil)
            return response
        }
        // State first: the steps this client may be at next in its flow (a new client: the
        // flows' first requests). Only when none of them matches does any step of the route.
        let conversation = conversations.find(in: request)
        let eligible = conversations.eligible(conversation)
        var scoped = fullRoute
        scoped.candidates = fullRoute.candidates.filter { eligible.steps($0.flowIndex, $0.step) }
        var route = scoped
        var chosen = Self.contract(for: request, in: scoped, optional: optionalInputs)
        // A known client at a step its position allows: the spec's answer there is the answer.
        var stateChosen = conversation != nil && chosen != nil
        // The defect keeps sessions working whatever the flow says comes next.
        if has(.keepSessionAfterRevoke), sessions.isAlive(request.bearerToken) {
            stateChosen = false
        }
        if chosen == nil {
            route = fullRoute
            chosen = Self.contract(for: request, in: fullRoute, optional: optionalInputs)
            stateChosen = false
        }
        guard let (contract, match) = chosen else {
            let needsSession = route.candidates.contains { RouteTable.bearerName($0.request) != nil }
            let live = sessions.isAlive(request.bearerToken)
            let rejection: Rejection = needsSession && !live
                ? .unauthorized("no live session for the bearer token")
                : .request("the request does not match the route's template")
            answeredBy = nil
            let response = respond(route: route, request: request, flowIndex: route.candidates[0].flowIndex, verdict: .failure(rejection))
            record(request, response, flowIndex: route.candidates[0].flowIndex, client: conversation)
            return response
        }
        let flow = flows[contract.flowIndex]
        let behaviour = RouteTable.behaviour(of: contract, in: flow)
        let verdict: Result<Acceptance, Rejection>
        do {
            verdict = .success(try await evaluate(behaviour, bindings: match.bindings, request: request, flow: flow, route: route))
        } catch let rejection as Rejection {
            verdict = .failure(rejection)
        } catch {
            verdict = .failure(.request("\(error)"))
        }
        issued = [:]
        answeredBy = nil
        conversationValues = conversations.values(of: conversation)
        let response = await finish(route: route, request: request, flowIndex: contract.flowIndex, bindings: match.bindings, verdict: verdict, stateChosen: stateChosen)
        let exit = answeredBy.map { Conversations.Exit(step: $0.step, alternate: $0.alternateIndex) }
        let client = conversations.answered(conversation, flowIndex: answeredBy?.flowIndex ?? contract.flowIndex, exit: exit, handedOut: issued)
        record(request, response, flowIndex: contract.flowIndex, client: client)
        return response
    }

    /// The step (or branch) whose own request template this request matches best: its
    /// contract says where the inputs are.
    static func contract(for request: MockHTTPRequest, in route: BackendRoute, optional: Set<String>) -> (RouteCandidate, RequestMatch)? {
        var best: (candidate: RouteCandidate, match: RequestMatch)?
        let incoming = IncomingRequest(request)
        var matched: [Int: RequestMatch?] = [:]
        func match(_ candidate: RouteCandidate) -> RequestMatch? {
            if candidate.matchClass >= 0, let known = matched[candidate.matchClass] { return known }
            let found = RequestMatcher.match(candidate.compiled, incoming, fixed: [:], optional: optional)
            if candidate.matchClass >= 0 { matched[candidate.matchClass] = found }
            return found
        }
        for candidate in route.candidates where candidate.isStepRequest {
            if let match = match(candidate), match.score > (best?.match.score ?? -1) {
                best = (candidate, match)
            }
        }
        if best == nil {
            for candidate in route.candidates {
                if let match = match(candidate), match.score > (best?.match.score ?? -1) {
                    best = (candidate, match)
                }
            }
        }
        return best.map { ($0.candidate, $0.match) }
    }

    /// Chooses the answer (the step's or a branch's `expect`), commits the acceptance only when
    /// the answer is a success, and renders it.
    /// `stateChosen`: the candidates are those the client's position in its flow allows, so a
    /// step whose only expectation is a failure (a second check-out: 409) is answered as the
    /// spec says even when nothing else refuses the request.
    func finish(route: BackendRoute, request: MockHTTPRequest, flowIndex: Int, bindings: [String: String], verdict: Result<Acceptance, Rejection>, stateChosen: Bool = false) async -> MockHTTPResponse {
        var matching: [(RouteCandidate, Int)] = []
        let incoming = IncomingRequest(request)
        // What the spec fixes: its variables, and what this client was handed out before. Flows
        // with the same variables fix the same, so a template is matched once per such class.
        var fixedByClass: [Int: [String: String]] = [:]
        var scores: [MatchMemo: Int?] = [:]
        for candidate in route.candidates {
            let variablesClass = variableClass[candidate.flowIndex]
            let memo = MatchMemo(template: candidate.matchClass, variables: variablesClass)
            let score: Int?
            if candidate.matchClass >= 0, let known = scores[memo] {
                score = known
            } else {
                let fixed = fixedByClass[variablesClass] ?? flowVariables[candidate.flowIndex].merging(conversationValues) { _, handedOut in handedOut }
                fixedByClass[variablesClass] = fixed
                score = RequestMatcher.match(candidate.compiled, incoming, fixed: fixed)?.score
                scores[memo] = score
            }
            if let score { matching.append((candidate, score)) }
        }
        func best(_ list: [(RouteCandidate, Int)]) -> RouteCandidate? {
            list.max { a, b in
                if a.1 != b.1 { return a.1 < b.1 }
                let aStep = a.0.alternateIndex == nil ? 1 : 0
                let bStep = b.0.alternateIndex == nil ? 1 : 0
                if aStep != bStep { return aStep < bStep }
                return a.0.flowIndex > b.0.flowIndex
            }?.0
        }
        switch verdict {
        case .success(var acceptance):
            if let success = best(matching.filter { $0.0.succeeds }) {
                let captures = await commit(&acceptance, captures: success.expectation?.captures ?? [], request: request)
                lastReason = nil
                answeredBy = success
                return render(success.expectation, accepted: true, flowIndex: success.flowIndex, bindings: bindings, acceptance: acceptance, captures: captures, request: request, rejection: nil)
            }
            // A branch with its own failing request (an invalid phone number) is chosen by the
            // input; a step whose only expectation is a failure (401 after deletion) is chosen by
            // state, and a live session there gets a plain success.
            if let failure = best(matching.filter { !$0.0.succeeds && (!$0.0.isStepRequest || stateChosen) }) {
                let reason = failure.isStepRequest
                    ? "step \(failure.step) answers this request at this point of the flow"
                    : "the request matches a failure branch of the spec"
                let rejection = Rejection(status: 400, code: "invalid_request", reason: reason)
                lastReason = rejection.reason
                answeredBy = failure
                return render(failure.expectation, accepted: false, flowIndex: failure.flowIndex, bindings: bindings, acceptance: nil, captures: [:], request: request, rejection: rejection)
            }
            let captures = await commit(&acceptance, captures: [], request: request)
            return render(nil, accepted: true, flowIndex: flowIndex, bindings: bindings, acceptance: acceptance, captures: captures, request: request, rejection: nil)
        case .failure(let rejection):
            return respond(route: route, request: request, flowIndex: flowIndex, verdict: .failure(rejection), matching: matching.map(\.0), bindings: bindings)
        }
    }

    func respond(route: BackendRoute, request: MockHTTPRequest, flowIndex: Int, verdict: Result<Acceptance, Rejection>, matching: [RouteCandidate] = [], bindings: [String: String] = [:]) -> MockHTTPResponse {
        guard case .failure(let rejection) = verdict else { return .empty(500) }
        lastReason = rejection.reason
        if rejection.malformed && has(.serverErrorOnMalformed) {
            return .error(500, "server_error", description: "unhandled exception while decoding the token")
        }
        // Only a failure the spec describes for this very request (its branch template matches)
        // shapes the answer; otherwise the rejection's own status (401 for a missing session,
        // not the 422 of an unrelated branch).
        let failure = matching.first { !$0.succeeds }
        answeredBy = failure
        var expectation = failure?.expectation
        if rejection.status >= 500 { expectation = nil }
        if expectation?.status == nil {
            return render(nil, accepted: false, flowIndex: flowIndex, bindings: bindings, acceptance: nil, captures: [:], request: request, rejection: rejection, status: rejection.status)
        }
        return render(expectation, accepted: false, flowIndex: failure?.flowIndex ?? flowIndex, bindings: bindings, acceptance: nil, captures: [:], request: request, rejection: rejection)
    }

    func render(
        _ expectation: Expectation?, accepted: Bool, flowIndex: Int, bindings: [String: String], acceptance: Acceptance?,
        captures: [String: String], request: MockHTTPRequest, rejection: Rejection?, status: Int? = nil
    ) -> MockHTTPResponse {
        var values = flowVariables[flowIndex]
        for (name, value) in conversationValues { values[name] = value }
        for (name, value) in bindings { values[name] = value }
        if let id = sessions.id(of: request.bearerToken), let session = sessions.session(id) {
            for (name, value) in session.values { values[name] = value }
        }
        var email: String?
        var subject: String?
        if let acceptance {
            for (name, value) in acceptance.values { values[name] = value }
            if let key = acceptance.account, let account = accounts[key] {
                email = account.email
                subject = account.sub ?? account.key
            }
        }
        if let email { values["provider.email"] = values["provider.email"] ?? email }
        if let subject { values["provider.sub"] = values["provider.sub"] ?? subject }
        let synthesizer = ResponseSynthesizer(
            values: values, captures: captures, email: email ?? values["provider.email"], subject: subject ?? values["provider.sub"],
            freshToken: { [random] in "fs_" + random.string(length: 32) })
        var response = synthesizer.response(
            for: expectation, accepted: accepted, errorCode: rejection?.code, errorDescription: rejection?.reason, method: request.method)
        if let status, expectation == nil { response.status = status }
        return response
    }

    static func variables(of flow: Flow) -> [String: String] {
        Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// A template class matched with a variables class (`finish`).
    struct MatchMemo: Hashable {
        var template: Int
        var variables: Int
    }
}
