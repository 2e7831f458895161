import FlowModel
import Foundation
import Testing
@testable import FlowMocks

@Suite struct TemplateTests {
    @Test func placeholdersCaptureBetweenLiterals() throws {
        let pattern = TemplatePattern("Bearer het-han.{{token}}")
        #expect(pattern.match("Bearer het-han.abc", fixed: [:], bindings: [:])?.bindings == ["token": "abc"])
        #expect(pattern.match("Bearer abc", fixed: [:], bindings: [:]) == nil)
        let fixed = TemplatePattern("sai-{{password}}")
        #expect(fixed.match("sai-secret", fixed: ["password": "secret"], bindings: [:]) != nil)
        #expect(fixed.match("sai-other", fixed: ["password": "secret"], bindings: [:]) == nil)
        #expect(TemplatePattern("{{a}}.{{b}}").match("x.y.z", fixed: [:], bindings: [:])?.bindings == ["a": "x", "b": "y.z"])
        #expect(TemplatePattern("{{ spaced }}").names == ["spaced"])
        #expect(TemplatePattern("a{{x}}b").interpolate(["x": "1"]) == "a1b")
    }

    @Test func jsonBodiesMatchStructurally() throws {
        let template = request("POST", "/login", headers: [("Content-Type", "application/json")], body: #"{"id_token": "{{provider.id_token}}", "nonce": "baska-{{provider.nonce}}"}"#)
        let incoming = MockHTTPRequest(method: "POST", target: "/login", body: Array(#"{ "nonce" : "baska-n1", "id_token":"t.t.t", "extra": 1 }"#.utf8))
        let match = try #require(RequestMatcher.match(template, incoming, fixed: [:]))
        #expect(match.bindings == ["provider.id_token": "t.t.t", "provider.nonce": "n1"])
        let plain = MockHTTPRequest(method: "POST", target: "/login", body: Array(#"{"nonce":"n1","id_token":"t"}"#.utf8))
        #expect(RequestMatcher.match(template, plain, fixed: [:]) == nil)
        #expect(RequestMatcher.match(template, MockHTTPRequest(method: "PUT", target: "/login"), fixed: [:]) == nil)
    }

    @Test func formsQueriesAndHeaders() throws {
        let form = request("POST", "/cb?mode={{mode}}", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer {{s}}")], body: "code={{provider.code}}&state=fixed")
        let incoming = MockHTTPRequest(
            method: "POST", target: "/cb?mode=web",
            headers: [HeaderField(name: "authorization", value: "Bearer abc")],
            body: Array("state=fixed&code=c%2B1".utf8))
        let match = try #require(RequestMatcher.match(form, incoming, fixed: [:]))
        #expect(match.bindings == ["mode": "web", "s": "abc", "provider.code": "c+1"])
        #expect(RouteTable.bearerName(form) == "s")
    }

    @Test func responsesSatisfyTheirExpectations() throws {
        let expectation = expect(
            201, json: [("$.user", .type(.object)), ("$.user.email", .equals(.string("{{provider.email}}"))), ("$.items[1]", .type(.number)), ("$.code", .matches("[A-Z]{3}-\\d+")), ("$.gone", .exists(false))],
            captures: [("session", "$.session_token")],
            headers: [("Content-Type", .matches("application/json.*")), ("X-Request-Id", .exists(true))])
        let synthesizer = ResponseSynthesizer(values: ["provider.email": "a@b.c"], captures: ["session": "fs_tok"], email: "a@b.c", subject: "sub", freshToken: { "fs_x" })
        let response = synthesizer.response(for: expectation, accepted: true, errorCode: nil, errorDescription: nil, method: "POST")
        #expect(response.status == 201)
        let body = try #require(response.jsonBody)
        for assertion in expectation.json {
            let value = assertion.path.evaluate(in: body)
            if case .exists(false) = assertion.matcher { #expect(value == nil) } else if case .equals = assertion.matcher {
                #expect(value == .string("a@b.c"))
            } else {
                #expect(value.map { ResponseSynthesizer.accepts(assertion.matcher, $0) } == true, "\(assertion.path)")
            }
        }
        #expect(response.json("$.session_token") == .string("fs_tok"))
        #expect(response.header("X-Request-Id") != nil)
        #expect(RegexSampler.fullMatch("application/json.*", response.header("Content-Type") ?? ""))
        let rejected = synthesizer.response(for: expect(401, json: [("$.token", .exists(false))]), accepted: false, errorCode: "invalid_token", errorDescription: "why", method: "POST")
        #expect(rejected.status == 401)
        #expect(rejected.json("$.error") == .string("invalid_token"))
        #expect(rejected.json("$.token") == nil)
    }

    @Test(arguments: ["\\d{4}", "[a-f0-9]+", "(foo|bar)-x?", "^Bearer .+$", "[^0-9]{2}\\.", "a*b+c{2}"])
    func regexSamples(_ pattern: String) throws {
        let sample = try #require(RegexSampler.sample(pattern))
        #expect(RegexSampler.fullMatch(pattern, sample))
    }

    @Test func secretsAreElided() {
        #expect(Secret.elide("eyJhbGciOiJFUzI1NiJ9.payload.sig") == "eyJhbGci…")
        #expect(Secret.elide("abcd") == "ab…")
        #expect(Secret.elide("") == "")
    }

    @Test func routeBehavioursAreInferredFromTemplates() {
        func behaviour(_ flow: Flow, _ stepIndex: Int) -> RouteBehaviour {
            let step = flow.steps[stepIndex]
            let candidate = RouteCandidate(flowIndex: 0, step: step.number, alternateIndex: nil, request: step.exchange!.request, expectation: step.exchange!.expectation, isStepRequest: true, succeeds: true)
            return RouteTable.behaviour(of: candidate, in: flow)
        }
        #expect(behaviour(Flows.web, 1) == [.signIn, .codeExchange])
        #expect(behaviour(Flows.native, 0) == [.signIn])
        #expect(behaviour(Flows.web, 3) == [.bearer])
        #expect(behaviour(Flows.refreshRevoke, 2) == [.bearer, .refresh])
        #expect(behaviour(Flows.refreshRevoke, 5) == [.bearer, .deletion])
        #expect(behaviour(Flows.refreshRevoke, 7) == [.bearer])
        #expect(behaviour(Flows.password, 0) == [.credentials])
        #expect(behaviour(Flows.notifications, 0) == [.notification])
    }

    /// A request written alike in several flows is matched once per request: its candidates
    /// share a class. Templates that differ in any part keep classes of their own, so a match is
    /// never reused for another template: every choice equals the one made with each candidate
    /// matched on its own.
    @Test func candidatesWrittenAlikeShareAMatchClass() throws {
        var copy = Flows.web
        copy.id = "web-copy"
        let table = RouteTable(flows: [Flows.web, copy, Flows.native])
        func route(_ path: String) throws -> BackendRoute { try #require(table.routes.first { $0.pathText == path }) }
        func classOf(_ route: BackendRoute, flow: Int, alternate: Int?) throws -> Int {
            try #require(route.candidates.first { $0.flowIndex == flow && $0.alternateIndex == alternate }).matchClass
        }
        let login = try route("/api/v1/auth/apple/login")
        #expect(try classOf(login, flow: 0, alternate: nil) == classOf(login, flow: 1, alternate: nil))
        #expect(try classOf(login, flow: 0, alternate: nil) != classOf(login, flow: 2, alternate: nil))
        #expect(try classOf(login, flow: 2, alternate: nil) != classOf(login, flow: 2, alternate: 1))
        let accounts = try route("/api/v1/accounts")
        #expect(try classOf(accounts, flow: 0, alternate: nil) == classOf(accounts, flow: 1, alternate: nil))
        #expect(try classOf(accounts, flow: 0, alternate: 1) == classOf(accounts, flow: 1, alternate: 1))
        #expect(try classOf(accounts, flow: 0, alternate: nil) != classOf(accounts, flow: 0, alternate: 1))
        #expect(login.candidates.allSatisfy { $0.matchClass >= 0 })

        func post(_ path: String, _ body: String, bearer: Bool = false) -> MockHTTPRequest {
            var headers = [HeaderField(name: "Content-Type", value: "application/json")]
            if bearer { headers.append(HeaderField(name: "Authorization", value: "Bearer fs_0123456789abcdef0123456789abcdef")) }
            return MockHTTPRequest(method: "POST", target: path, headers: headers, body: Array(body.utf8))
        }
        let requests = [
            (login, post("/api/v1/auth/apple/login", #"{"authorization_code": "c", "id_token": "t", "nonce": "n"}"#)),
            (login, post("/api/v1/auth/apple/login", #"{"id_token": "t", "nonce": "n"}"#)),
            (login, post("/api/v1/auth/apple/login", #"{"id_token": "t", "nonce": "baska-n"}"#)),
            (accounts, post("/api/v1/accounts", #"{"name": "An", "phone": "+84901234567", "email": "a@b.c"}"#, bearer: true)),
            (accounts, post("/api/v1/accounts", #"{"name": "An", "phone": "not-a-number", "email": "a@b.c"}"#, bearer: true)),
        ]
        for (route, request) in requests {
            var alone = route
            for index in alone.candidates.indices { alone.candidates[index].matchClass = -1 }
            let shared = try #require(MockBackend.contract(for: request, in: route, optional: []))
            let reference = try #require(MockBackend.contract(for: request, in: alone, optional: []))
            #expect(shared.0.flowIndex == reference.0.flowIndex)
            #expect(shared.0.step == reference.0.step)
            #expect(shared.0.alternateIndex == reference.0.alternateIndex)
            #expect(shared.1.score == reference.1.score)
            #expect(shared.1.bindings == reference.1.bindings)
        }
    }
}
