import FlowModel
import Foundation

/// One way a route can be answered: a step's request (or a branch's own request) with the
/// expectation that goes with it.
struct RouteCandidate: Sendable {
    var flowIndex: Int
    var step: Int
    /// Index of the alternate whose request or expectation this is; nil for the step's own.
    var alternateIndex: Int?
    var request: RequestTemplate
    var expectation: Expectation?
    /// True when `request` is the step's own template (the route's contract), not a branch's.
    var isStepRequest: Bool
    /// The expectation is 1xx–3xx.
    var succeeds: Bool
    /// `request`'s patterns, compiled once.
    let compiled: CompiledRequest
    /// Candidates of a route whose templates match alike (the same method, target, headers and
    /// body: one request written in several flows) share a class, and a request is matched
    /// once per class, not once per flow that writes it. Set by `RouteTable`; -1: a class of
    /// its own.
    var matchClass = -1

    init(flowIndex: Int, step: Int, alternateIndex: Int?, request: RequestTemplate, expectation: Expectation?, isStepRequest: Bool, succeeds: Bool) {
        self.flowIndex = flowIndex
        self.step = step
        self.alternateIndex = alternateIndex
        self.request = request
        self.expectation = expectation
        self.isStepRequest = isStepRequest
        self.succeeds = succeeds
        compiled = CompiledRequest(request)
    }
}

/// What a route does, inferred from its templates and its flow (never hand-written per flow).
struct RouteBehaviour: OptionSet, Sendable, Hashable {
    let rawValue: Int
    /// Body carries `{{provider.id_token}}`: validate it strictly and sign in.
    static let signIn = RouteBehaviour(rawValue: 1 << 0)
    /// Carries `{{provider.code}}`: exchange it at the provider's `/auth/token`.
    static let codeExchange = RouteBehaviour(rawValue: 1 << 1)
    /// Carries `{{provider.notification}}`: the server-to-server notification endpoint.
    static let notification = RouteBehaviour(rawValue: 1 << 2)
    /// `Authorization: Bearer {{x}}`: needs a live session.
    static let bearer = RouteBehaviour(rawValue: 1 << 3)
    /// Account deletion: revoke at the provider, then end every session.
    static let deletion = RouteBehaviour(rawValue: 1 << 4)
    /// Session renewal that re-verifies the provider's refresh token.
    static let refresh = RouteBehaviour(rawValue: 1 << 5)
    /// Uses declared variables as credentials (username/password).
    static let credentials = RouteBehaviour(rawValue: 1 << 6)
}

/// All requests of all flows' `http` blocks grouped by method and path.
struct BackendRoute: Sendable {
    var method: String
    var path: TemplatePattern
    var pathText: String
    var candidates: [RouteCandidate]
}

struct RouteTable: Sendable {
    var routes: [BackendRoute]

    init(flows: [Flow]) {
        var routes: [BackendRoute] = []
        func add(_ candidate: RouteCandidate) {
            let method = candidate.request.method.uppercased()
            let path = candidate.request.path
            if let index = routes.firstIndex(where: { $0.method == method && $0.pathText == path }) {
                routes[index].candidates.append(candidate)
            } else {
                routes.append(BackendRoute(method: method, path: TemplatePattern(path), pathText: path, candidates: [candidate]))
            }
        }
        for (flowIndex, flow) in flows.enumerated() {
            for step in flow.steps {
                guard let exchange = step.exchange else { continue }
                add(RouteCandidate(
                    flowIndex: flowIndex, step: step.number, alternateIndex: nil, request: exchange.request,
                    expectation: exchange.expectation, isStepRequest: true,
                    succeeds: ResponseSynthesizer.isSuccess(exchange.expectation)))
                for (index, alternate) in step.alternates.enumerated() where alternate.request != nil || alternate.expectation != nil {
                    let expectation = alternate.expectation ?? exchange.expectation
                    add(RouteCandidate(
                        flowIndex: flowIndex, step: step.number, alternateIndex: index,
                        request: alternate.request ?? exchange.request, expectation: expectation,
                        isStepRequest: alternate.request == nil, succeeds: ResponseSynthesizer.isSuccess(expectation)))
                }
            }
        }
        for index in routes.indices {
            var classes: [MatchKey: Int] = [:]
            for position in routes[index].candidates.indices {
                let request = routes[index].candidates[position].request
                let key = MatchKey(method: request.method.uppercased(), target: request.target, headers: request.headers, body: request.body)
                let known = classes[key]
                routes[index].candidates[position].matchClass = known ?? classes.count
                if known == nil { classes[key] = classes.count }
            }
        }
        self.routes = routes
    }

    /// What `CompiledRequest` is made of.
    private struct MatchKey: Hashable {
        var method: String
        var target: String
        var headers: [HeaderField]
        var body: String?
    }

    /// Routes whose method and path match, most specific first.
    func routes(for request: MockHTTPRequest, fixed: [String: String]) -> [(route: BackendRoute, bindings: [String: String])] {
        routes.compactMap { route -> (BackendRoute, [String: String], Int)? in
            guard route.method == request.method, let match = route.path.match(request.path, fixed: fixed, bindings: [:]) else { return nil }
            return (route, match.bindings, match.score)
        }
        .sorted { $0.2 > $1.2 }
        .map { ($0.0, $0.1) }
    }

    static func behaviour(of candidate: RouteCandidate, in flow: Flow) -> RouteBehaviour {
        let template = candidate.request
        let names = Set(template.references.map(\.name)).union(Self.placeholders(in: template))
        var behaviour: RouteBehaviour = []
        if names.contains("provider.id_token") { behaviour.insert(.signIn) }
        if names.contains("provider.code") { behaviour.insert(.codeExchange) }
        if names.contains("provider.notification") { behaviour.insert(.notification) }
        if bearerName(template) != nil { behaviour.insert(.bearer) }
        let declared = Set(flow.variables.map(\.name))
        if !names.isDisjoint(with: declared), behaviour.isDisjoint(with: [.signIn, .codeExchange, .notification]) {
            behaviour.insert(.credentials)
        }
        let rules = flow.tokenRules
        let method = template.method.uppercased()
        let followedByProviderCall = providerCallFollows(step: candidate.step, in: flow)
        if behaviour.contains(.bearer) {
            let revocationHere = rules.contains { $0.kind == .revocation && $0.step == candidate.step }
            let hasRevocationRule = rules.contains { $0.kind == .revocation }
            if revocationHere || (method == "DELETE" && (hasRevocationRule || followedByProviderCall)) {
                behaviour.insert(.deletion)
            } else if behaviour.isDisjoint(with: [.signIn, .codeExchange, .notification]) {
                let exchangeHere = rules.contains { $0.kind == .exchange && $0.step == candidate.step }
                if exchangeHere || followedByProviderCall { behaviour.insert(.refresh) }
            }
        }
        return behaviour
    }

    /// The placeholder names of a template (path, headers, body), for models built without
    /// `references`.
    static func placeholders(in template: RequestTemplate) -> [String] {
        var names = TemplatePattern(template.target).names
        for header in template.headers { names += TemplatePattern(header.value).names }
        if let body = template.body { names += TemplatePattern(body).names }
        return names
    }

    /// `x` in `Authorization: Bearer {{x}}`.
    static func bearerName(_ template: RequestTemplate) -> String? {
        guard let value = template.header("Authorization") else { return nil }
        let pattern = TemplatePattern(value.trimmingCharacters(in: .whitespaces))
        guard pattern.parts.count == 2, case .literal(let prefix) = pattern.parts[0],
            String(decoding: prefix, as: UTF8.self).lowercased() == "bearer ", case .placeholder(let name) = pattern.parts[1]
        else { return nil }
        return name
    }

    /// Whether a backend → provider step comes after `step` before the client's next request.
    static func providerCallFollows(step: Int, in flow: Flow) -> Bool {
        let machine = StateMachine(flow: flow)
        var queue = machine.transitions(from: step).compactMap { transition -> Int? in
            if case .step(let next) = transition.target { return next }
            return nil
        }
        var seen = Set<Int>([step])
        while let number = queue.popLast() {
            guard seen.insert(number).inserted, let next = flow.step(number) else { continue }
            let kind = flow.kind(of: next)
            if kind == .providerCall { return true }
            if kind == .request || kind == .undescribedRequest { continue }
            for transition in machine.transitions(from: number) {
                if case .step(let following) = transition.target { queue.append(following) }
            }
        }
        return false
    }
}
