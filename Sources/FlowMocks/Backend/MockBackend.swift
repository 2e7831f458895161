import FlowModel
import FlowParser
import Foundation
import JOSE

/// The embedded mock backend: derived from the flows' `http` blocks, never hand-written per
/// flow. It serves every route the specs name, infers what each does from its templates (sign
/// in with `{{provider.id_token}}`, exchange `{{provider.code}}`, need a session for
/// `Authorization: Bearer {{x}}`, take notifications, delete accounts, check declared
/// credentials), validates provider tokens strictly per token-cases.md against the mock
/// provider's JWKS, and answers each request with the `expect` block of the step or branch it
/// matches. Correct by default; `Defect`s inject classic bugs so the checker can be proved to
/// catch them. Rejections are 4xx with a JSON error and create nothing.
public actor MockBackend: MockHTTPHandler {
    typealias Session = SessionStore.Session

    struct Account {
        var key: String
        var sub: String?
        var email: String?
        var clientID: String?
        /// The flow the account signed in through (its provider link).
        var flowID: String?
        var refreshToken: String?
        var accessToken: String?
        var deleted = false
    }

    struct Rejection: Error {
        var status: Int
        var code: String
        var reason: String
        var malformed = false

        static func malformed(_ reason: String) -> Rejection { Rejection(status: 400, code: "invalid_token", reason: reason, malformed: true) }
        static func invalid(_ reason: String) -> Rejection { Rejection(status: 401, code: "invalid_token", reason: reason) }
        static func request(_ reason: String) -> Rejection { Rejection(status: 400, code: "invalid_request", reason: reason) }
        static func unauthorized(_ reason: String) -> Rejection { Rejection(status: 401, code: "unauthorized", reason: reason) }
        static func upstream(_ reason: String) -> Rejection { Rejection(status: 503, code: "provider_unavailable", reason: reason) }
    }

    /// What an accepted request will do once its success answer is chosen.
    struct Acceptance {
        enum Effect {
            case none
            /// Create a new session for the account (sign-in, credentials, renewal).
            case newSession
            /// Revoke at the provider, end every session, delete the account.
            case deleteAccount
            /// Apply a notification event (once per jti).
            case notification(jti: String, type: String, sub: String, email: String?)
        }

        var account: String?
        var effect: Effect
        var values: [String: String] = [:]
        var replayHash: String?
    }

    /// One request the backend answered, for `flowspec mock --backend`'s log.
    public struct Record: Sendable, Hashable {
        public var sequence: Int
        public var method: String
        /// Path and query, secrets elided.
        public var path: String
        public var status: Int
        public var flowID: String?
        /// The step (and branch) whose expectation answered, nil for a generic answer.
        public var step: Int?
        public var stepTitle: String?
        public var branch: String?
        /// The conversation (client) the request belonged to.
        public var client: Int?
        /// Why it was refused, when it was.
        public var reason: String?
    }

    public let defects: Set<Defect>
    private let flows: [Flow]
    private let table: RouteTable
    /// Per flow id: the provider the flow names, where it is and how to authenticate there.
    private let links: [String: BackendProviderLink]
    private let clock: @Sendable () -> Date
    private let random: any RandomSource
    private let transport: any HTTPTransport
    private let server = MockHTTPServer()

    /// What the backend knows of one provider's JWKS (cached per JWKS URL).
    struct JWKSCache {
        /// The set as served, for the JOSE verifier.
        var set = JWKS(keys: [])
        var keys: [String: [RSAKey]] = [:]
        var first: RSAKey?
        var unusable = 0
        var loaded = false
    }

    private var jwksCaches: [String: JWKSCache] = [:]
    private var jwksFetches = 0
    private var sessions = SessionStore()
    private var accounts: [String: Account] = [:]
    /// Sign-in tokens already used (hash → exp), refused as replays until they expire.
    private var usedTokens: [String: Int64] = [:]
    private var usedTokensPruneAt = 1024
    private var replayCache: [String: String] = [:]
    /// Where each client is in its flow.
    private var conversations: Conversations
    /// Values handed out while answering the current request (captures), for `conversations`.
    private var issued: [String: String] = [:]
    /// The step or branch whose expectation answered the current request (nil: none did).
    private var answeredBy: RouteCandidate?
    /// What the current request's conversation was handed out before (capture name → value).
    private var conversationValues: [String: String] = [:]
    private var processedJTIs = Set<String>()
    private var lastReason: String?

    /// Seconds of clock skew tolerated for `exp`, `iat` and `nbf`.
    static let leeway: Int64 = 60

    /// - Parameter links: per flow id, the provider the flow names (flows without one have none).
    public init(
        flows: [Flow],
        links: [String: BackendProviderLink],
        defects: Set<Defect> = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        transport: (any HTTPTransport)? = nil
    ) {
        self.flows = flows
        self.table = RouteTable(flows: flows)
        self.conversations = Conversations(flows: flows)
        self.links = links
        self.defects = defects
        self.clock = clock
        self.random = random
        self.transport = transport ?? NetworkTransport()
    }

    /// Every flow signs in at one Apple provider with an ES256 `client_secret` (tests).
    public init(
        flows: [Flow],
        providerBaseURL: URL,
        registration: ClientRegistration,
        clientPrivateKeyPEM: String,
        defects: Set<Defect> = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        transport: (any HTTPTransport)? = nil
    ) {
        let apple = BuiltinProviders.profiles["apple"]!
        var links: [String: BackendProviderLink] = [:]
        let signer = try? ClientSecretSigner(teamID: registration.teamID ?? "", keyID: registration.keyID ?? "", privateKeyPEM: clientPrivateKeyPEM)
        for flow in flows {
            let profile = apple.resolved(variables: Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
            let clientID = flow.variables.first { $0.name == "client_id" }?.value ?? registration.clientID
            var credentials: [String: ClientCredentials] = [:]
            for id in Set([clientID, registration.clientID]) {
                if let signer { credentials[id] = .apple(clientID: id, signer: signer) }
            }
            links[flow.id] = BackendProviderLink(
                profile: profile, baseURL: providerBaseURL, issuers: profile.issuers(servedAt: providerBaseURL.absoluteString.trimmingSuffix("/")),
                credentials: credentials, defaultClientID: registration.clientID, redirectURI: registration.redirectURI)
        }
        self.init(flows: flows, links: links, defects: defects, clock: clock, random: random, transport: transport)
    }

    // MARK: Lifecycle and introspection

    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> URL {
        try await server.start(host: host, port: port, handler: self, label: "mock-backend")
    }

    public func stop() async { await server.stop() }

    /// `METHOD /path` of every route served, in spec order.
    public nonisolated var routeDescriptions: [String] { table.routes.map { "\($0.method) \($0.pathText)" } }

    /// Whether `token` (a captured session value) is a live session.
    public func isSessionAlive(_ token: String) -> Bool {
        sessions.isAlive(token)
    }

    /// Accounts created so far (deleted ones included).
    public func accountCount() -> Int { accounts.count }

    /// How often the backend fetched a provider's JWKS.
    public func jwksFetchCount() -> Int { jwksFetches }

    /// Why the last request was rejected (for tests and logs; no secrets).
    public func lastRejectionReason() -> String? { lastReason }

    /// The requests answered so far, oldest first (at least the last `recordLimit`).
    public func records() -> [Record] { log }

    static let recordLimit = 10_000
    private var log: [Record] = []
    private var sequence = 0

    private func record(_ request: MockHTTPRequest, _ response: MockHTTPResponse, flowIndex: Int?, client: Int?) {
        sequence += 1
        let answering = answeredBy.flatMap { candidate in flows[candidate.flowIndex].step(candidate.step).map { (candidate, $0) } }
        let branch = answering.flatMap { candidate, step in
            candidate.alternateIndex.flatMap { step.alternates.indices.contains($0) ? step.alternates[$0].label : nil }
        }
        let target = request.path + (request.query.map { "?" + $0 } ?? "")
        log.append(Record(
            sequence: sequence, method: request.method, path: Redaction.text(target), status: response.status,
            flowID: (answering?.0.flowIndex ?? flowIndex).map { flows[$0].id }, step: answering?.1.number, stepTitle: answering?.1.title,
            branch: branch, client: client, reason: response.status >= 400 ? lastReason : nil))
        // Trimmed in batches: shifting 10 000 entries on every request cost 9 % of the CPU.
        if log.count > Self.recordLimit + Self.recordLimit / 2 { log.removeFirst(log.count - Self.recordLimit) }
    }

    private var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    private func has(_ defect: Defect) -> Bool { defects.contains(defect) }

    /// Request members the backend lets the client leave out (only with `nonce-optional`).
    private var optionalInputs: Set<String> { has(.nonceOptional) ? ["provider.nonce"] : [] }

    private func freshToken() -> String { "fs_" + random.string(length: 32) }

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
    private static func contract(for request: MockHTTPRequest, in route: BackendRoute, optional: Set<String>) -> (RouteCandidate, RequestMatch)? {
        var best: (candidate: RouteCandidate, match: RequestMatch)?
        for candidate in route.candidates where candidate.isStepRequest {
            if let match = RequestMatcher.match(candidate.request, request, fixed: [:], optional: optional), match.score > (best?.match.score ?? -1) {
                best = (candidate, match)
            }
        }
        if best == nil {
            for candidate in route.candidates {
                if let match = RequestMatcher.match(candidate.request, request, fixed: [:], optional: optional), match.score > (best?.match.score ?? -1) {
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
    private func finish(route: BackendRoute, request: MockHTTPRequest, flowIndex: Int, bindings: [String: String], verdict: Result<Acceptance, Rejection>, stateChosen: Bool = false) async -> MockHTTPResponse {
        var matching: [(RouteCandidate, Int)] = []
        for candidate in route.candidates {
            // What the spec fixes: its variables, and what this client was handed out before.
            let fixed = variables(of: flows[candidate.flowIndex]).merging(conversationValues) { _, handedOut in handedOut }
            if let match = RequestMatcher.match(candidate.request, request, fixed: fixed) { matching.append((candidate, match.score)) }
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

    private func respond(route: BackendRoute, request: MockHTTPRequest, flowIndex: Int, verdict: Result<Acceptance, Rejection>, matching: [RouteCandidate] = [], bindings: [String: String] = [:]) -> MockHTTPResponse {
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

    private func render(
        _ expectation: Expectation?, accepted: Bool, flowIndex: Int, bindings: [String: String], acceptance: Acceptance?,
        captures: [String: String], request: MockHTTPRequest, rejection: Rejection?, status: Int? = nil
    ) -> MockHTTPResponse {
        var values = variables(of: flows[flowIndex])
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

    private func variables(of flow: Flow) -> [String: String] {
        Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    // MARK: Commit

    private func commit(_ acceptance: inout Acceptance, captures: [Capture], request: MockHTTPRequest) async -> [String: String] {
        var issued: [String: String] = [:]
        for capture in captures { issued[capture.name] = freshToken() }
        self.issued = issued
        let bearerSession = sessions.id(of: request.bearerToken)
        switch acceptance.effect {
        case .newSession:
            let key = acceptance.account ?? Self.anonymousPrefix + random.string(length: 12)
            acceptance.account = key
            if accounts[key] == nil { accounts[key] = Account(key: key) }
            if let hash = acceptance.replayHash, has(.acceptReplay) { replayCache[hash] = key }
            createSession(account: key, tokens: issued)
        case .deleteAccount:
            if let id = bearerSession, let key = sessions.session(id)?.account {
                acceptance.account = key
                await revokeAtProvider(account: key)
                accounts[key]?.deleted = true
                accounts[key]?.refreshToken = nil
                accounts[key]?.accessToken = nil
                endSessions(of: key)
            }
        case .notification(let jti, let type, let sub, let email):
            if processedJTIs.insert(jti).inserted {
                switch type {
                case "consent-revoked":
                    endSessions(of: sub)
                case "account-delete", "account-deleted":
                    accounts[sub]?.deleted = true
                    endSessions(of: sub)
                case "email-disabled", "email-enabled":
                    if let email { accounts[sub]?.email = email }
                default:
                    break
                }
            }
        case .none:
            if !issued.isEmpty {
                if let id = bearerSession {
                    for (name, token) in issued { sessions.add(token, named: name, to: id) }
                } else {
                    let key = Self.anonymousPrefix + random.string(length: 12)
                    accounts[key] = Account(key: key)
                    createSession(account: key, tokens: issued)
                }
            }
        }
        return issued
    }

    /// Accounts made up for a client that got values without signing in; forgotten with their
    /// last session.
    private static let anonymousPrefix = "anonymous-"

    private func createSession(account: String, tokens: [String: String]) {
        for orphan in sessions.create(account: account, tokens: tokens) where orphan.hasPrefix(Self.anonymousPrefix) {
            accounts[orphan] = nil
        }
    }

    private func endSessions(of account: String) {
        guard !has(.keepSessionAfterRevoke) else { return }
        sessions.end(account: account)
    }

    // MARK: Behaviours

    private func evaluate(_ behaviour: RouteBehaviour, bindings: [String: String], request: MockHTTPRequest, flow: Flow, route: BackendRoute) async throws -> Acceptance {
        var session: Session?
        if behaviour.contains(.bearer) {
            guard let live = sessions.live(request.bearerToken) else {
                throw Rejection.unauthorized("no live session for the bearer token")
            }
            session = live
        }
        let audiences = self.audiences(of: route)
        if behaviour.contains(.notification) || behaviour.contains(.signIn) || behaviour.contains(.codeExchange) {
            guard links[flow.id] != nil else { throw Rejection.request("flow \(flow.id) names no identity provider") }
        }
        if behaviour.contains(.notification), let link = links[flow.id] {
            return try await evaluateNotification(bindings: bindings, request: request, audiences: audiences, link: link)
        }
        if behaviour.contains(.signIn), let link = links[flow.id] {
            return try await evaluateSignIn(behaviour, bindings: bindings, flow: flow, audiences: audiences, link: link)
        }
        if behaviour.contains(.codeExchange), let link = links[flow.id] {
            return try await evaluateCodeOnly(bindings: bindings, flow: flow, audiences: audiences, link: link)
        }
        if behaviour.contains(.deletion) {
            return Acceptance(account: session?.account, effect: .deleteAccount)
        }
        if behaviour.contains(.refresh), let session {
            return try await evaluateRefresh(session: session)
        }
        if behaviour.contains(.credentials) {
            let declared = variables(of: flow)
            var account: String?
            for variable in flow.variables {
                guard let value = bindings[variable.name] else { continue }
                guard value == declared[variable.name] else { throw Rejection.unauthorized("invalid credentials") }
                if account == nil { account = value }
            }
            let key = account ?? "anonymous"
            if accounts[key] == nil {
                accounts[key] = Account(key: key, sub: key, email: key.contains("@") ? key : "\(key)@example.com")
            }
            return Acceptance(account: key, effect: .newSession)
        }
        return Acceptance(account: session?.account, effect: .none)
    }

    private func audiences(of route: BackendRoute) -> Set<String> {
        var result = Set<String>()
        for candidate in route.candidates {
            if let clientID = flows[candidate.flowIndex].variables.first(where: { $0.name == "client_id" })?.value { result.insert(clientID) }
        }
        if result.isEmpty {
            for candidate in route.candidates { if let id = links[flows[candidate.flowIndex].id]?.defaultClientID { result.insert(id) } }
        }
        return result
    }

    private func evaluateSignIn(_ behaviour: RouteBehaviour, bindings: [String: String], flow: Flow, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        guard let token = bindings["provider.id_token"], !token.isEmpty else { throw Rejection.request("id_token is missing") }
        let hash = TokenMinter.sha256Hex(token)
        if has(.acceptReplay), let key = replayCache[hash] {
            return Acceptance(account: key, effect: .newSession, values: accountValues(key))
        }
        let verified = try await verify(token, link: link, skipSignature: false)
        let claims = verified.claims
        try checkIDTokenClaims(claims, audiences: audiences, rawNonce: bindings["provider.nonce"], link: link, nonce: flow.nonce ?? link.profile.nonce)
        if !has(.acceptReplay) {
            // Pruned in batches: filtering on every sign-in made a load run quadratic.
            if usedTokens.count >= usedTokensPruneAt {
                usedTokens = usedTokens.filter { $0.value + Self.leeway >= now }
                usedTokensPruneAt = max(1024, 2 * usedTokens.count)
            }
            guard usedTokens[hash] == nil else { throw Rejection.invalid("this id_token was already used (replay)") }
            usedTokens[hash] = claims["exp"]?.doubleValue.map { Int64($0) } ?? now + 600
        }
        let sub = claims.string("sub") ?? ""
        let clientID = Self.audience(claims, within: audiences) ?? link.defaultClientID
        var exchanged: (refresh: String?, access: String?)?
        if behaviour.contains(.codeExchange), !has(.noCodeExchange) {
            guard let code = bindings["provider.code"], !code.isEmpty else { throw Rejection.request("authorization code is missing") }
            exchanged = try await exchange(code: code, clientID: clientID, flow: flow, expectedSub: sub, link: link)
        }
        upsertAccount(sub: sub, email: claims.string("email"), clientID: clientID, flowID: flow.id, tokens: exchanged)
        return Acceptance(account: sub, effect: .newSession, values: accountValues(sub), replayHash: hash)
    }

    private func evaluateCodeOnly(bindings: [String: String], flow: Flow, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        guard !has(.noCodeExchange) else { return Acceptance(account: nil, effect: .newSession) }
        guard let code = bindings["provider.code"], !code.isEmpty else { throw Rejection.request("authorization code is missing") }
        let clientID = variables(of: flow)["client_id"] ?? link.defaultClientID
        let result = try await exchangeRaw(code: code, clientID: clientID, flow: flow, link: link)
        let verified = try await verify(result.idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: nil, link: link)
        let sub = verified.claims.string("sub") ?? ""
        upsertAccount(sub: sub, email: verified.claims.string("email"), clientID: clientID, flowID: flow.id, tokens: (result.refresh, result.access))
        return Acceptance(account: sub, effect: .newSession, values: accountValues(sub))
    }

    private func evaluateRefresh(session: Session) async throws -> Acceptance {
        guard let account = accounts[session.account], let refresh = account.refreshToken, let sub = account.sub,
            let link = account.flowID.flatMap({ links[$0] })
        else {
            return Acceptance(account: session.account, effect: .newSession, values: accountValues(session.account))
        }
        let clientID = account.clientID ?? link.defaultClientID
        let response = try await postToProvider(link, link.profile.endpoints.token, clientID: clientID, [
            ("grant_type", "refresh_token"), ("refresh_token", refresh),
        ])
        guard response.status == 200, let body = response.jsonBody, case .string(let idToken)? = JSONPath(parsing: "$.id_token")?.evaluate(in: body) else {
            endSessions(of: session.account)
            throw Rejection.unauthorized("the provider refused the refresh token (\(Self.errorCode(response)))")
        }
        let verified = try await verify(idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: sub, link: link)
        if case .string(let access)? = JSONPath(parsing: "$.access_token")?.evaluate(in: body) { accounts[session.account]?.accessToken = access }
        return Acceptance(account: session.account, effect: .newSession, values: accountValues(session.account))
    }

    private func evaluateNotification(bindings: [String: String], request: MockHTTPRequest, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        var jwt = bindings["provider.notification"]
        if jwt == nil, let body = JSONBridge.parse(request.body), case .string(let payload)? = JSONPath(parsing: "$.payload")?.evaluate(in: body) {
            jwt = payload
        }
        guard let jwt, !jwt.isEmpty else { throw Rejection.request("notification payload is missing") }
        let verified = try await verify(jwt, link: link, skipSignature: has(.ignoreNotificationSignature))
        let claims = verified.claims
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") { throw Rejection.invalid("notification iss is not the provider's") }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], audiences) { throw Rejection.invalid("notification aud is not ours") }
        try checkTimes(claims)
        guard let jti = claims.string("jti"), !jti.isEmpty else { throw Rejection.invalid("notification has no jti") }
        guard let eventsText = claims.string("events"), let events = try? StrictJSON.parseObject(Array(eventsText.utf8)),
            let type = events.string("type"), let sub = events.string("sub"), !sub.isEmpty
        else { throw Rejection.invalid("notification has no events object (type, sub)") }
        return Acceptance(account: sub, effect: .notification(jti: jti, type: type, sub: sub, email: events.string("email")))
    }

    private func accountValues(_ key: String) -> [String: String] {
        guard let account = accounts[key] else { return [:] }
        var values: [String: String] = [:]
        if let sub = account.sub { values["provider.sub"] = sub }
        if let email = account.email { values["provider.email"] = email }
        return values
    }

    private func upsertAccount(sub: String, email: String?, clientID: String, flowID: String, tokens: (refresh: String?, access: String?)?) {
        var account = accounts[sub] ?? Account(key: sub, sub: sub)
        if account.deleted { account = Account(key: sub, sub: sub) }
        account.email = email ?? account.email
        account.clientID = clientID
        account.flowID = flowID
        if let tokens {
            account.refreshToken = tokens.refresh ?? account.refreshToken
            account.accessToken = tokens.access ?? account.accessToken
        }
        accounts[sub] = account
    }

    // MARK: Provider calls

    /// Posts a form to the provider's `path`, authenticated as `clientID` by the link's method.
    private func postToProvider(_ link: BackendProviderLink, _ path: String, clientID: String, _ fields: [(String, String)]) async throws -> MockHTTPResponse {
        let url = link.url(of: path)
        var authentication: (fields: [(String, String)], headers: [HeaderField]) = ([("client_id", clientID)], [])
        if let credentials = link.credentials[clientID] ?? link.credentials[link.defaultClientID] {
            authentication = credentials.authentication(
                endpointURL: url.absoluteString, now: now, jti: random.string(length: 24), der: has(.clientSecretDER))
        }
        do {
            return try await transport.send(.form(path, authentication.fields + fields, headers: authentication.headers), to: url)
        } catch {
            throw Rejection.upstream("the identity provider is unreachable")
        }
    }

    private static func errorCode(_ response: MockHTTPResponse) -> String {
        if let body = response.jsonBody, case .string(let code)? = JSONPath(parsing: "$.error")?.evaluate(in: body) { return code }
        return "HTTP \(response.status)"
    }

    private func exchangeRaw(code: String, clientID: String, flow: Flow, link: BackendProviderLink) async throws -> (idToken: String, refresh: String?, access: String?) {
        var fields = [("code", code), ("grant_type", "authorization_code")]
        if let redirect = variables(of: flow)["redirect_uri"] ?? link.redirectURI { fields.append(("redirect_uri", redirect)) }
        let response = try await postToProvider(link, link.profile.endpoints.token, clientID: clientID, fields)
        guard response.status == 200, let body = response.jsonBody,
            case .string(let idToken)? = JSONPath(parsing: "$.id_token")?.evaluate(in: body)
        else {
            throw Rejection.invalid("the code exchange failed (\(Self.errorCode(response)))")
        }
        var refresh: String?
        var access: String?
        if case .string(let value)? = JSONPath(parsing: "$.refresh_token")?.evaluate(in: body) { refresh = value }
        if case .string(let value)? = JSONPath(parsing: "$.access_token")?.evaluate(in: body) { access = value }
        return (idToken, refresh, access)
    }

    private func exchange(code: String, clientID: String, flow: Flow, expectedSub: String, link: BackendProviderLink) async throws -> (refresh: String?, access: String?) {
        let result = try await exchangeRaw(code: code, clientID: clientID, flow: flow, link: link)
        let verified = try await verify(result.idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: expectedSub, link: link)
        return (result.refresh, result.access)
    }

    private func revokeAtProvider(account key: String) async {
        guard !has(.skipRevoke), let account = accounts[key], let clientID = account.clientID,
            let link = account.flowID.flatMap({ links[$0] }), let revocation = link.profile.endpoints.revocation
        else { return }
        let token: (String, String)?
        if let refresh = account.refreshToken {
            token = (refresh, "refresh_token")
        } else if let access = account.accessToken {
            token = (access, "access_token")
        } else {
            token = nil
        }
        guard let (value, hint) = token else { return }
        _ = try? await postToProvider(link, revocation, clientID: clientID, [("token", value), ("token_type_hint", hint)])
    }

    // MARK: Token validation

    struct VerifiedToken {
        var header: JSONObject
        var claims: JSONObject
    }

    /// Header and signature, strictly (each check can be switched off by a defect).
    /// Defects that break header or signature verification itself: they take the deliberately
    /// broken path below. Every other run verifies with JOSE's `JWTVerifier`.
    static let verifierDefects: Set<Defect> = [
        .skipSignature, .trustHeaderAlg, .algNoneAccepted, .ignoreHeaderAlg, .acceptCrit, .trustEmbeddedJWK, .trustJKU, .firstKey, .kidFallback,
        .lenientBase64, .duplicateClaimsFirstWins, .duplicateClaimsLastWins,
    ]

    /// Header and signature: JOSE's strict verifier (RS256 only, `none` and key-choosing headers
    /// refused, unknown `crit` fatal, key by `kid` from the provider's JWKS with one refetch on an
    /// unknown `kid`, unusable JWKS entries skipped); its typed error is the rejection's reason.
    func verify(_ token: String, link: BackendProviderLink, skipSignature: Bool) async throws -> VerifiedToken {
        if skipSignature || !defects.isDisjoint(with: Self.verifierDefects) {
            return try await verifyDefectively(token, link: link, skipSignature: skipSignature)
        }
        let jwksURL = link.url(of: link.profile.endpoints.jwks).absoluteString
        if !(jwksCaches[jwksURL]?.loaded ?? false) { try await fetchJWKS(link) }
        let verifier = JWTVerifier(expectedAlgorithm: .RS256)
        var refetched = false
        while true {
            let cache = jwksCaches[jwksURL] ?? JWKSCache()
            if has(.rejectUnusableJWKS), cache.unusable > 0 { throw Rejection.invalid("the JWKS holds a key this verifier cannot read") }
            do {
                let verified = try verifier.verifyOrThrow(token, jwks: cache.set)
                return VerifiedToken(header: verified.header, claims: verified.claims)
            } catch .unknownKeyID where !refetched && !has(.noJWKSRefetch) {
                refetched = true
                try await fetchJWKS(link)
            } catch .malformed(let error) {
                throw Rejection.malformed("malformed token: \(error)")
            } catch {
                throw Rejection.invalid(error.description)
            }
        }
    }

    /// The defects' verification: each one a classic bug, on purpose.
    private func verifyDefectively(_ token: String, link: BackendProviderLink, skipSignature: Bool) async throws -> VerifiedToken {
        let parsed: ParsedJWS
        let duplicates: StrictJSON.DuplicateMembers = has(.duplicateClaimsFirstWins) ? .firstWins : has(.duplicateClaimsLastWins) ? .lastWins : .reject
        let leniency = JWS.Leniency(padding: has(.lenientBase64), duplicateClaims: duplicates)
        do { parsed = try JWS.parse(token, leniency: leniency) } catch { throw Rejection.malformed("malformed token: \(error)") }
        let header = parsed.header
        guard let alg = header.string("alg") else { throw Rejection.invalid("header has no alg") }
        var noSignature = skipSignature || has(.skipSignature)
        var algorithm = JWSAlgorithm.RS256
        if alg.lowercased() == "none" {
            guard has(.algNoneAccepted) else { throw Rejection.invalid("unsecured (alg none) tokens are refused") }
            noSignature = true
        } else if has(.trustHeaderAlg) {
            guard let named = JWSAlgorithm(rawValue: alg) else { throw Rejection.invalid("unsupported alg \(alg)") }
            algorithm = named
        } else if !has(.ignoreHeaderAlg), alg != "RS256" {
            throw Rejection.invalid("alg \(alg) is not RS256")
        }
        if header.contains("crit"), !has(.acceptCrit) { throw Rejection.invalid("unsupported critical header") }
        if header.contains("x5c") { throw Rejection.invalid("x5c header refused") }
        var key: RSAKey?
        if let embedded = header["jwk"] {
            guard has(.trustEmbeddedJWK) else { throw Rejection.invalid("jwk header refused: keys come from the provider's JWKS") }
            key = embedded.objectValue.flatMap { try? JWK(object: $0) }.flatMap { try? RSAKey(jwk: $0.publicOnly) }
        } else if let remote = header.string("jku") ?? header.string("x5u") {
            guard has(.trustJKU) else { throw Rejection.invalid("jku/x5u header refused: keys come from the provider's JWKS") }
            key = await fetchRemoteKey(remote, kid: header.string("kid"))
        }
        if !noSignature {
            if key == nil { key = try await selectKey(header["kid"], link: link) }
            guard let key else { throw Rejection.invalid("no key to verify with") }
            let verificationKey: JWSVerificationKey = algorithm == .HS256 ? .hmac(Array(key.publicKeyPEM.utf8)) : .rsa(key)
            guard parsed.verifySignature(algorithm: algorithm, key: verificationKey) else {
                throw Rejection.invalid("signature does not verify")
            }
        }
        guard let claims = parsed.payload else {
            throw Rejection.invalid("payload is not a JSON object" + (parsed.payloadError.map { ": \($0)" } ?? ""))
        }
        return VerifiedToken(header: header, claims: claims)
    }

    private func selectKey(_ kidNode: JSONNode?, link: BackendProviderLink) async throws -> RSAKey {
        let jwksURL = link.url(of: link.profile.endpoints.jwks).absoluteString
        if !(jwksCaches[jwksURL]?.loaded ?? false) { try await fetchJWKS(link) }
        var cache = jwksCaches[jwksURL] ?? JWKSCache()
        if has(.rejectUnusableJWKS), cache.unusable > 0 { throw Rejection.invalid("the JWKS holds a key this verifier cannot read") }
        if has(.firstKey), let first = cache.first { return first }
        guard let kid = kidNode?.stringValue else { throw Rejection.invalid("header has no kid") }
        if let keys = cache.keys[kid] {
            guard keys.count == 1 else { throw Rejection.invalid("several JWKS keys share the kid") }
            return keys[0]
        }
        if !has(.noJWKSRefetch) {
            try await fetchJWKS(link)
            cache = jwksCaches[jwksURL] ?? JWKSCache()
            if has(.rejectUnusableJWKS), cache.unusable > 0 { throw Rejection.invalid("the JWKS holds a key this verifier cannot read") }
            if let keys = cache.keys[kid], keys.count == 1 { return keys[0] }
        }
        if has(.kidFallback), let first = cache.first { return first }
        throw Rejection.invalid("kid is not in the provider's JWKS")
    }

    private func fetchJWKS(_ link: BackendProviderLink) async throws {
        let path = link.profile.endpoints.jwks
        let url = link.url(of: path)
        let response: MockHTTPResponse
        do {
            response = try await transport.send(MockHTTPRequest(method: "GET", target: path), to: url)
        } catch {
            throw Rejection.upstream("the provider's JWKS is unreachable")
        }
        jwksFetches += 1
        guard response.status == 200, let decoded = try? JWKS.decode(json: response.body) else {
            throw Rejection.upstream("the provider's JWKS is unreadable")
        }
        var keys: [String: [RSAKey]] = [:]
        var first: RSAKey?
        var unusable = decoded.skipped
        for jwk in decoded.set.keys {
            guard jwk.kty == "RSA", jwk.use == nil || jwk.use == "sig", jwk.alg == nil || jwk.alg == "RS256",
                let key = try? RSAKey(jwk: jwk.publicOnly), key.bits >= 2048
            else {
                unusable += 1
                continue
            }
            if first == nil { first = key }
            if let kid = jwk.kid { keys[kid, default: []].append(key) }
        }
        jwksCaches[url.absoluteString] = JWKSCache(set: decoded.set, keys: keys, first: first, unusable: unusable, loaded: true)
    }

    /// What a backend that trusts `jku`/`x5u` does: fetch the URL (the provider records it).
    private func fetchRemoteKey(_ address: String, kid: String?) async -> RSAKey? {
        guard let url = URL(string: address), url.scheme == "http" || url.scheme == "https" else { return nil }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        guard let response = try? await transport.send(MockHTTPRequest(method: "GET", target: target), to: url), response.status == 200 else {
            return nil
        }
        if let set = try? JWKS(json: response.body) {
            let jwk = set.keys.first { $0.kid == kid } ?? set.keys.first
            return jwk.flatMap { try? RSAKey(jwk: $0.publicOnly) }
        }
        return try? RSAKey(pem: response.bodyText)
    }

    // MARK: Claims

    static func audience(_ claims: JSONObject, within audiences: Set<String>) -> String? {
        if let aud = claims.string("aud") { return audiences.contains(aud) ? aud : nil }
        if let first = claims["aud"]?.arrayValue?.first?.stringValue { return audiences.contains(first) ? first : nil }
        return nil
    }

    /// `aud` is one of ours, as a string or an array holding only ours.
    static func audienceAccepted(_ node: JSONNode?, _ audiences: Set<String>) -> Bool {
        guard let node else { return false }
        if let aud = node.stringValue { return audiences.contains(aud) }
        guard let elements = node.arrayValue, !elements.isEmpty else { return false }
        return elements.allSatisfy { $0.stringValue.map(audiences.contains) ?? false }
    }

    private static func isNumber(_ node: JSONNode?) -> Bool {
        switch node {
        case .int?, .double?: true
        default: false
        }
    }

    private func checkIDTokenClaims(_ claims: JSONObject, audiences: Set<String>, rawNonce: String?, link: BackendProviderLink, nonce transform: NonceTransform) throws {
        if claims.contains("events") { throw Rejection.invalid("a notification is not an ID token") }
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") {
            throw Rejection.invalid("iss is not one of \(link.issuers.joined(separator: ", "))")
        }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], audiences) { throw Rejection.invalid("aud is not this app") }
        // OpenID Connect Core §3.1.3.7: an azp that is present must be this client.
        if !has(.skipAud), let azp = claims["azp"], !(azp.stringValue.map(audiences.contains) ?? false) {
            throw Rejection.invalid("azp is not this app")
        }
        try checkTimes(claims)
        guard let sub = claims.string("sub"), !sub.isEmpty else { throw Rejection.invalid("sub missing, empty or not a string") }
        // A nonce posted empty counts as posted (and fails the comparison), unless the backend
        // checks the nonce only "if one was sent" (`nonce-optional`: absent, empty, null).
        let posted = has(.nonceOptional) && rawNonce?.isEmpty == true ? nil : rawNonce
        if let rawNonce = posted, !has(.skipNonce) {
            // The flow says how the nonce reaches the claim; the defect applies the other rule.
            let hashed = (transform == .sha256) != has(.nonceUnhashed)
            let expected = hashed ? TokenMinter.sha256Hex(rawNonce) : rawNonce
            if let claim = claims["nonce"] {
                guard claim.stringValue == expected else { throw Rejection.invalid("nonce does not match the SHA-256 of the posted nonce") }
            } else {
                let supported = claims["nonce_supported"]
                let unsupported = supported == .bool(false) || supported == .string("false")
                guard unsupported else { throw Rejection.invalid("nonce claim missing") }
            }
        }
    }

    /// A NumericDate: a JSON number; with the `iat-string`/`nbf-string` defects also a string
    /// of digits, as PyJWT's `int(payload["iat"])` reads it.
    private static func numericDate(_ node: JSONNode?, acceptingStrings: Bool) -> Double? {
        if isNumber(node) { return node?.doubleValue }
        if acceptingStrings, let text = node?.stringValue { return Double(text) }
        return nil
    }

    private func checkTimes(_ claims: JSONObject) throws {
        let now = self.now
        if !has(.skipExp) {
            guard Self.isNumber(claims["exp"]), let exp = claims["exp"]?.doubleValue else { throw Rejection.invalid("exp missing or not a number") }
            guard exp + Double(Self.leeway) > Double(now) else { throw Rejection.invalid("token expired") }
        }
        if !has(.skipIat) {
            guard let iat = Self.numericDate(claims["iat"], acceptingStrings: has(.iatString)) else { throw Rejection.invalid("iat missing or not a number") }
            guard iat <= Double(now + Self.leeway) else { throw Rejection.invalid("iat is in the future") }
        }
        if !has(.skipNbf), let nbf = claims["nbf"] {
            guard let value = Self.numericDate(nbf, acceptingStrings: has(.nbfString)) else { throw Rejection.invalid("nbf is not a number") }
            guard value <= Double(now + Self.leeway) else { throw Rejection.invalid("token not valid yet (nbf)") }
        }
    }

    private func checkExchangedClaims(_ claims: JSONObject, clientID: String, expectedSub: String?, link: BackendProviderLink) throws {
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") { throw Rejection.invalid("exchanged id_token: iss is not the provider's") }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], [clientID]) { throw Rejection.invalid("exchanged id_token: aud is not this app") }
        try checkTimes(claims)
        guard let sub = claims.string("sub"), !sub.isEmpty else { throw Rejection.invalid("exchanged id_token: sub missing") }
        if let expectedSub, !has(.skipExchangeSubject), sub != expectedSub {
            throw Rejection.invalid("exchanged id_token: sub differs from the client's token")
        }
    }
}

/// How the embedded mock backend reaches the provider of one flow: the profile (resolved), where
/// the provider is, the issuers it accepts, and how it authenticates per client id.
public struct BackendProviderLink: Sendable {
    public var profile: ProviderProfile
    public var baseURL: URL
    public var issuers: [String]
    public var credentials: [String: ClientCredentials]
    /// The client id used when a token names none of the flows' (and for routes without one).
    public var defaultClientID: String
    public var redirectURI: String?

    public init(profile: ProviderProfile, baseURL: URL, issuers: [String], credentials: [String: ClientCredentials], defaultClientID: String, redirectURI: String? = nil) {
        self.profile = profile
        self.baseURL = baseURL
        self.issuers = issuers
        self.credentials = credentials
        self.defaultClientID = defaultClientID
        self.redirectURI = redirectURI
    }

    func url(of path: String) -> URL {
        URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) ?? baseURL
    }
}
