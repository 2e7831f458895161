import FlowModel
import Foundation
import JOSE
@testable import FlowMocks

/// Keys shared by every test: RSA generation is the slow part of a provider.
enum TestKeys {
    static let provider: ProviderKeyMaterial = {
        do { return try ProviderKeyMaterial.generate(signingKeys: 3, spares: 6) } catch { fatalError("\(error)") }
    }()
    static let client: ECKey = {
        do { return try ECKey.generate() } catch { fatalError("\(error)") }
    }()
    static let otherClient: ECKey = {
        do { return try ECKey.generate() } catch { fatalError("\(error)") }
    }()
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_760_000_000)) { current = start }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(by seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }

    var function: @Sendable () -> Date { { [self] in self.now } }
}

// MARK: Flow building

let here = SourceLocation(file: "test.md", line: 1, column: 1)

func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) -> RequestTemplate {
    RequestTemplate(method: method, target: target, headers: headers.map { HeaderField(name: $0.0, value: $0.1) }, body: body, location: here)
}

func expect(_ status: Int, json: [(String, ValueMatcher)] = [], captures: [(String, String)] = [], headers: [(String, ValueMatcher)] = []) -> Expectation {
    Expectation(
        status: StatusExpectation(codes: [status], location: here),
        headers: headers.map { HeaderExpectation(name: $0.0, matcher: $0.1, location: here) },
        json: json.map { JSONAssertion(path: JSONPath(parsing: $0.0)!, matcher: $0.1, location: here) },
        captures: captures.map { Capture(name: $0.0, source: .json(JSONPath(parsing: $0.1)!), location: here) },
        location: here)
}

func step(_ number: Int, _ from: String, _ to: String, _ request: RequestTemplate? = nil, _ expectation: Expectation? = nil, alternates: [Alternate] = []) -> Step {
    Step(
        number: number, title: "step \(number)", from: from, to: to, alternates: alternates,
        exchange: request.map { Exchange(request: $0, expectation: expectation) }, prose: Markdown(source: "", location: here), location: here)
}

func alternate(_ label: String, _ target: Target, request: RequestTemplate? = nil, expectation: Expectation? = nil) -> Alternate {
    Alternate(label: label, target: target, location: here, request: request, expectation: expectation)
}

func rule(_ kind: TokenRuleKind, step: Int?) -> TokenRule {
    TokenRule(id: kind.rawValue, kind: kind, token: "id_token", step: step, requirement: "", location: here)
}

let standardActors = [
    Actor(id: "user", name: "User", role: .person, location: here),
    Actor(id: "app", name: "App", role: .client, location: here),
    Actor(id: "apple", name: "Apple", role: .provider, location: here),
    Actor(id: "backend", name: "Backend", role: .backend, location: here),
]

func flow(_ id: String, variables: [(String, String)], steps: [Step], rules: [TokenRule] = []) -> Flow {
    Flow(
        file: "flows/\(id).md", id: id, title: id, provider: "apple", nonce: .sha256, actors: standardActors,
        variables: variables.map { Variable(name: $0.0, value: $0.1, location: here) }, steps: steps, tokenRules: rules, location: here)
}

enum Flows {
    static let webClientID = "com.tvl.app.web"
    static let nativeClientID = "com.eventtracker.ios"
    static let loginBody = #"{"authorization_code": "{{provider.code}}", "id_token": "{{provider.id_token}}", "nonce": "{{provider.nonce}}"}"#

    /// Web sign-in with code exchange, then an account registration with a failure branch.
    static let web = flow(
        "web", variables: [("client_id", webClientID), ("redirect_uri", "https://app.example/callback")],
        steps: [
            step(1, "user", "app"),
            step(2, "app", "backend",
                 request("POST", "/api/v1/auth/apple/login", headers: [("Content-Type", "application/json")], body: loginBody),
                 expect(200, json: [("$.session_token", .type(.string)), ("$.user.email", .equals(.string("{{provider.email}}")))],
                        captures: [("session", "$.session_token")],
                        headers: [("Content-Type", .matches("application/json.*"))])),
            step(3, "backend", "apple"),
            step(4, "app", "backend",
                 request("POST", "/api/v1/accounts", headers: [("Authorization", "Bearer {{session}}"), ("Content-Type", "application/json")],
                         body: #"{"name": "An", "phone": "+84901234567", "email": "{{provider.email}}"}"#),
                 expect(201),
                 alternates: [
                    alternate("created", .end(.success)),
                    alternate("invalid phone", .end(.failure),
                              request: request("POST", "/api/v1/accounts", headers: [("Authorization", "Bearer {{session}}"), ("Content-Type", "application/json")],
                                               body: #"{"name": "An", "phone": "not-a-number", "email": "{{provider.email}}"}"#),
                              expectation: expect(422)),
                 ]),
        ],
        rules: [rule(.signature, step: 2), rule(.nonce, step: 2), rule(.exchange, step: 2)])

    /// Native sign-in: id_token and raw nonce only, with a failure branch that mangles the nonce.
    static let native = flow(
        "native", variables: [("client_id", nativeClientID)],
        steps: [
            step(1, "app", "backend",
                 request("POST", "/api/v1/auth/apple/login", headers: [("Content-Type", "application/json")],
                         body: #"{"id_token": "{{provider.id_token}}", "nonce": "{{provider.nonce}}"}"#),
                 expect(200, json: [("$.session_token", .type(.string)), ("$.user", .type(.object))], captures: [("session", "$.session_token")]),
                 alternates: [
                    alternate("accepted", .end(.success)),
                    alternate("nonce mismatch", .end(.failure),
                              request: request("POST", "/api/v1/auth/apple/login", headers: [("Content-Type", "application/json")],
                                               body: #"{"id_token": "{{provider.id_token}}", "nonce": "baska-{{provider.nonce}}"}"#),
                              expectation: expect(401, json: [("$.session_token", .exists(false))])),
                 ]),
        ],
        rules: [rule(.signature, step: 1), rule(.nonce, step: 1)])

    /// Login, renewal that re-verifies the refresh token, deletion with revoke, dead session.
    static let refreshRevoke = flow(
        "refresh-revoke", variables: [("client_id", webClientID), ("redirect_uri", "https://app.example/callback")],
        steps: [
            step(1, "app", "backend",
                 request("POST", "/api/v1/auth/apple/login", headers: [("Content-Type", "application/json")], body: loginBody),
                 expect(200, json: [("$.session_token", .type(.string))], captures: [("session", "$.session_token")])),
            step(2, "backend", "apple"),
            step(3, "app", "backend",
                 request("POST", "/api/v1/auth/refresh", headers: [("Authorization", "Bearer {{session}}")]),
                 expect(200, json: [("$.session_token", .type(.string))], captures: [("renewed_session", "$.session_token")])),
            step(4, "backend", "apple"),
            step(5, "user", "app", alternates: [alternate("confirm", .step(6)), alternate("cancel", .end(.cancelled))]),
            step(6, "app", "backend", request("DELETE", "/api/v1/accounts/me", headers: [("Authorization", "Bearer {{renewed_session}}")]), expect(204)),
            step(7, "backend", "apple"),
            step(8, "app", "backend", request("GET", "/api/v1/accounts/me", headers: [("Authorization", "Bearer {{renewed_session}}")]), expect(401)),
        ],
        rules: [rule(.exchange, step: 3), rule(.revocation, step: 6)])

    /// Username and password, profile with a bearer token, a forged-token branch.
    static let password = flow(
        "password", variables: [("username", "demo.user"), ("password", "FinFlow-Demo-2025")],
        steps: [
            step(1, "app", "backend",
                 request("POST", "/api/auth/login", headers: [("Content-Type", "application/json")], body: #"{"username": "{{username}}", "password": "{{password}}"}"#),
                 expect(200, json: [("$.token", .type(.string))], captures: [("token", "$.token")]),
                 alternates: [
                    alternate("accepted", .step(2)),
                    alternate("wrong password", .end(.failure),
                              request: request("POST", "/api/auth/login", headers: [("Content-Type", "application/json")], body: #"{"username": "{{username}}", "password": "sai-{{password}}"}"#),
                              expectation: expect(401, json: [("$.token", .exists(false))])),
                 ]),
            step(2, "app", "backend",
                 request("GET", "/api/users/my-profile", headers: [("Authorization", "Bearer {{token}}"), ("Accept", "application/json")]),
                 expect(200, json: [("$.email", .type(.string))]),
                 alternates: [
                    alternate("loaded", .end(.success)),
                    alternate("expired", .step(1),
                              request: request("GET", "/api/users/my-profile", headers: [("Authorization", "Bearer het-han.{{token}}")]),
                              expectation: expect(401)),
                 ]),
        ])

    /// Apple's server-to-server notifications endpoint.
    static let notifications = flow(
        "notifications", variables: [("client_id", webClientID)],
        steps: [
            step(1, "apple", "backend",
                 request("POST", "/api/v1/apple/notifications", headers: [("Content-Type", "application/json")], body: #"{"payload": "{{provider.notification}}"}"#),
                 expect(200)),
        ],
        rules: [TokenRule(id: "notifications", kind: .notifications, token: "notification", step: 1, requirement: "", location: here)])

    static let all = [web, native, refreshRevoke, password, notifications]
}

// MARK: Harness

/// A provider and a backend talking in-process (no sockets), with a hand-moved clock.
struct Harness {
    let provider: MockProvider
    let backend: MockBackend
    let clock: TestClock
    let registration: ClientRegistration
    static let providerURL = URL(string: "http://provider.test:4000")!

    init(flows: [Flow] = Flows.all, defects: Set<Defect> = [], clock: TestClock = TestClock(), seed: UInt64 = 1) async {
        self.clock = clock
        let registrations = EmbeddedMocks.registrations(
            for: flows, teamID: "TEAM123456", keyID: "KEY1234567", publicKeyPEM: TestKeys.client.publicKeyPEM)
        registration = registrations[0]
        provider = MockProvider(registrations: registrations, clock: clock.function, random: SeededRandom(seed: seed), keys: TestKeys.provider)
        await provider.setBaseURL(Self.providerURL)
        backend = MockBackend(
            flows: flows, providerBaseURL: Self.providerURL, registration: registration, clientPrivateKeyPEM: TestKeys.client.privateKeyPEM,
            defects: defects, clock: clock.function, random: SeededRandom(seed: seed + 100),
            transport: InProcessTransport(baseURL: Self.providerURL, handler: provider))
    }

    /// Sends a spec template with placeholders filled in.
    func send(_ template: RequestTemplate, _ values: [String: String]) async -> MockHTTPResponse {
        let target = TemplatePattern(template.target).interpolate(values)
        let headers = template.headers.map { HeaderField(name: $0.name, value: TemplatePattern($0.value).interpolate(values)) }
        let body = template.body.map { Array(TemplatePattern($0).interpolate(values).utf8) } ?? []
        return await backend.handle(MockHTTPRequest(method: template.method, target: target, headers: headers, body: body))
    }

    /// Sign in through the web flow's login step with a (possibly forged) token.
    func webSignIn(_ forgery: TokenForgery = .none, user: MockUser? = nil, nonce: String = "raw-nonce-0123456789") async -> (response: MockHTTPResponse, signIn: ProviderSignIn) {
        let user = user ?? MockUser.random(using: SeededRandom(seed: 42))
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nonce, user: user, forgery: forgery)
        let response = await send(Flows.web.steps[1].exchange!.request, signIn.placeholderValues)
        return (response, signIn)
    }

    func session(of response: MockHTTPResponse, path: String = "$.session_token") -> String? {
        guard let body = response.jsonBody, case .string(let token)? = JSONPath(parsing: path)?.evaluate(in: body) else { return nil }
        return token
    }
}

extension MockHTTPResponse {
    func json(_ path: String) -> JSONNode? {
        jsonBody.flatMap { JSONPath(parsing: path)?.evaluate(in: $0) }
    }
}

/// Apple's endpoint paths as Apple documents them (appleid.apple.com), independent of the
/// built-in profile the mock reads them from.
enum ApplePaths {
    static let jwks = "/auth/keys"
    static let token = "/auth/token"
    static let revoke = "/auth/revoke"
    static let authorize = "/auth/authorize"
    static let discovery = "/.well-known/openid-configuration"
}
