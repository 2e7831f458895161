import FlowModel
import Foundation
import JOSE
import Testing
@testable import FlowMocks

/// Every variant of every ID-token case, against the correct backend.
struct CaseVariant: Sendable, CustomTestStringConvertible {
    var caseID: String
    var index: Int
    var testDescription: String { "\(caseID)/\(index)" }

    static let idTokenVariants: [CaseVariant] = TokenCase.catalogue.flatMap { tokenCase in
        TokenForgery.variants(for: tokenCase.id).compactMap { variant -> CaseVariant? in
            // C15 and C19 change what is posted, not the token: DefectTests drive them.
            guard variant.forgery.target == .idToken, !["C15", "C19"].contains(tokenCase.id) else { return nil }
            return CaseVariant(caseID: tokenCase.id, index: variant.forgery.index ?? 0)
        }
    }
}

extension CaseVariant {
    /// Every variant the provider can mint into a notification, for notification rules.
    static let notificationVariants: [CaseVariant] = TokenCase.catalogue.flatMap { tokenCase in
        TokenForgery.variants(for: tokenCase.id).compactMap { variant -> CaseVariant? in
            guard variant.forgery.canApply(to: .notification) else { return nil }
            return CaseVariant(caseID: tokenCase.id, index: variant.forgery.index ?? 0)
        }
    }
}

@Suite struct BackendCaseTests {
    @Test(arguments: CaseVariant.notificationVariants)
    func correctBackendPassesEveryNotificationCase(_ variant: CaseVariant) async throws {
        let harness = await Harness()
        let user = MockUser.random(using: SeededRandom(seed: 700))
        let session = try #require(harness.session(of: await harness.webSignIn(user: user).response))
        let forgery: TokenForgery = variant.caseID == "P1" ? .none : .variant(caseID: variant.caseID, index: variant.index)
        let jwt = await harness.provider.mintNotification(
            clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: user.sub, isPrivateEmail: true), forgery: forgery)
        let response = await harness.send(Flows.notifications.steps[0].exchange!.request, ["provider.notification": jwt])
        let expectation: CaseExpectation = variant.caseID == "C17" || variant.caseID == "N2" ? .reject : try #require(TokenCase.named(variant.caseID)).expectation
        let reason = await harness.backend.lastRejectionReason() ?? ""
        switch expectation {
        case .accept:
            #expect(response.status == 200, "\(variant.testDescription): \(reason)")
            #expect(await harness.backend.isSessionAlive(session) == false, "consent-revoked must end the session")
        case .reject:
            #expect((400..<500).contains(response.status), "\(variant.testDescription) answered \(response.status)")
            #expect(await harness.backend.isSessionAlive(session), "\(variant.testDescription) changed state")
        case .informational:
            #expect(response.status < 500)
        }
    }

    @Test(arguments: CaseVariant.idTokenVariants)
    func correctBackendPassesEveryIDTokenCase(_ variant: CaseVariant) async throws {
        let harness = await Harness()
        let warm = await harness.webSignIn(user: MockUser.random(using: SeededRandom(seed: 500)))
        #expect(warm.response.status == 200, "baseline sign-in before \(variant.testDescription)")
        let accounts = await harness.backend.accountCount()
        let forgery: TokenForgery = variant.caseID == "P1" ? .none : .variant(caseID: variant.caseID, index: variant.index)
        let (response, _) = await harness.webSignIn(forgery, user: MockUser.random(using: SeededRandom(seed: 501)))
        let expectation = try #require(TokenCase.named(variant.caseID)).expectation
        switch expectation {
        case .accept:
            let reason = await harness.backend.lastRejectionReason() ?? ""
            #expect(response.status == 200, "\(variant.testDescription): \(reason)")
            let session = try #require(harness.session(of: response))
            #expect(await harness.backend.isSessionAlive(session))
        case .reject:
            #expect((400..<500).contains(response.status), "\(variant.testDescription) answered \(response.status)")
            #expect(harness.session(of: response) == nil)
            #expect(response.json("$.error") != nil)
            #expect(await harness.backend.accountCount() == accounts)
        case .informational:
            #expect(response.status < 500)
        }
    }

    @Test func replayedTokenIsRejected() async throws {
        let harness = await Harness(flows: [Flows.native])
        let signIn = await harness.provider.signIn(clientID: Flows.nativeClientID, rawNonce: "n-123", user: MockUser.random(), forgery: .variant(caseID: "C15", index: 0))
        let template = Flows.native.steps[0].exchange!.request
        let first = await harness.send(template, signIn.placeholderValues)
        #expect(first.status == 200)
        let second = await harness.send(template, signIn.placeholderValues)
        #expect(second.status == 401)
        #expect(harness.session(of: second) == nil)
    }

    @Test(arguments: ["X1", "X2", "X3"])
    func exchangeCasesAreRejected(_ caseID: String) async throws {
        for variant in TokenEndpointOverride.variants(for: caseID) {
            let harness = await Harness()
            await harness.provider.setTokenEndpointOverride(variant.override)
            let (response, _) = await harness.webSignIn()
            #expect((400..<500).contains(response.status), "\(variant.description)")
            #expect(await harness.backend.accountCount() == 0)
            let exchanges = await harness.provider.records(at: .token)
            #expect(exchanges.count == 1)
            #expect(exchanges.first?.clientSecret?.violations == [])
        }
    }

    @Test func codeExchangeIsObservedWithAValidClientSecret() async throws {
        let harness = await Harness()
        let (response, _) = await harness.webSignIn()
        #expect(response.status == 200)
        let record = try #require(await harness.provider.records(at: .token).first)
        #expect(record.grantType == "authorization_code")
        #expect(record.clientID == Flows.webClientID)
        #expect(record.fields["redirect_uri"] == "https://app.example/callback")
        #expect(record.clientSecret?.violations == [])
        #expect(await harness.provider.records(at: .jwks).count == 1)
    }

    @Test func loginAnswerSatisfiesTheExpectBlock() async throws {
        let harness = await Harness()
        let user = MockUser.random(using: SeededRandom(seed: 77))
        let (response, _) = await harness.webSignIn(user: user)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.json("$.user.email") == .string(user.email))
        guard case .string(let token)? = response.json("$.session_token") else { Issue.record("no session"); return }
        #expect(token.hasPrefix("fs_"))
    }

    @Test func nativeFlowNonceBranchAndHonestPath() async throws {
        let harness = await Harness(flows: [Flows.native])
        let template = Flows.native.steps[0].exchange!.request
        let branch = try #require(Flows.native.steps[0].alternates[1].request)
        let honest = await harness.provider.signIn(clientID: Flows.nativeClientID, rawNonce: "raw-1", user: MockUser.random())
        let ok = await harness.send(template, honest.placeholderValues)
        #expect(ok.status == 200)
        #expect(ok.json("$.user") == .object([:]) || ok.json("$.user")?.typeName == .object)
        let other = await harness.provider.signIn(clientID: Flows.nativeClientID, rawNonce: "raw-2", user: MockUser.random())
        let mangled = await harness.send(branch, other.placeholderValues)
        #expect(mangled.status == 401)
        #expect(mangled.json("$.session_token") == nil)
        #expect(await harness.backend.accountCount() == 1)
    }

    @Test func notificationsEndSessionsOnceAndRejectForgeries() async throws {
        let harness = await Harness()
        let user = MockUser.random(using: SeededRandom(seed: 90))
        let (login, _) = await harness.webSignIn(user: user)
        let session = try #require(harness.session(of: login))
        let template = Flows.notifications.steps[0].exchange!.request
        for variant in TokenForgery.variants(for: "N2") + [(TokenForgery.variant(caseID: "C17", index: 1), "id token as notification")] {
            let jwt = await harness.provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: user.sub), forgery: variant.forgery)
            let response = await harness.send(template, ["provider.notification": jwt])
            #expect((400..<500).contains(response.status), "\(variant.description)")
            #expect(await harness.backend.isSessionAlive(session), "\(variant.description) changed state")
        }
        let email = await harness.provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .emailDisabled, sub: user.sub, email: user.email))
        #expect(await harness.send(template, ["provider.notification": email]).status == 200)
        #expect(await harness.backend.isSessionAlive(session))
        let revoked = await harness.provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: user.sub, jti: "dup-1"))
        #expect(await harness.send(template, ["provider.notification": revoked]).status == 200)
        #expect(await harness.backend.isSessionAlive(session) == false)
        #expect(await harness.send(template, ["provider.notification": revoked]).status == 200)
        let deleted = await harness.provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .accountDelete, sub: user.sub))
        #expect(await harness.send(template, ["provider.notification": deleted]).status == 200)
    }
}

@Suite struct BackendScenarioTests {
    /// A profile step that echoes provider values answers with the signed-in user's own; an
    /// expectation naming a value nobody has gets a generated one: no answer ever carries `{{`.
    @Test func placeholdersNeverLeakIntoAnswers() async throws {
        let profile = step(
            3, "app", "backend", request("GET", "/api/v1/me", headers: [("Authorization", "Bearer {{session}}")]),
            expect(200, json: [("$.sub", .equals(.string("{{provider.sub}}"))), ("$.email", .equals(.string("{{provider.email}}"))),
                               ("$.plan", .equals(.string("{{never_declared}}")))]))
        var web = Flows.web
        web.steps = [web.steps[0], web.steps[1], profile]
        let harness = await Harness(flows: [web])
        let user = MockUser.random(using: SeededRandom(seed: 31))
        let session = try #require(harness.session(of: await harness.webSignIn(user: user).response))
        let answer = await harness.send(profile.exchange!.request, ["session": session])
        #expect(answer.status == 200)
        #expect(answer.json("$.sub") == .string(user.sub))
        #expect(answer.json("$.email") == .string(user.email))
        #expect(!answer.bodyText.contains("{{"), "\(answer.bodyText)")
    }

    @Test func refreshThenDeleteRevokesAndEndsSessions() async throws {
        let harness = await Harness(flows: [Flows.refreshRevoke])
        let flow = Flows.refreshRevoke
        let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random())
        let login = await harness.send(flow.steps[0].exchange!.request, signIn.placeholderValues)
        let session = try #require(harness.session(of: login))
        let renewed = await harness.send(flow.steps[2].exchange!.request, ["session": session])
        #expect(renewed.status == 200)
        let renewedSession = try #require(harness.session(of: renewed))
        let refresh = try #require(await harness.provider.records(at: .token).last)
        #expect(refresh.grantType == "refresh_token")
        #expect(refresh.clientSecret?.violations == [])
        let deleted = await harness.send(flow.steps[5].exchange!.request, ["renewed_session": renewedSession])
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        let revoke = try #require(await harness.provider.records(at: .revoke).first)
        #expect(revoke.fields["recognized"] == "refresh_token")
        #expect(revoke.fields["token_type_hint"] == "refresh_token")
        #expect(revoke.clientSecret?.violations == [])
        let after = await harness.send(flow.steps[7].exchange!.request, ["renewed_session": renewedSession])
        #expect(after.status == 401)
        #expect(await harness.backend.isSessionAlive(session) == false)
        let tokens = await harness.provider.refreshTokens(for: signIn.user.sub)
        #expect(tokens.count == 1)
        #expect(await harness.provider.isRevoked(tokens[0]) == true)
    }

    @Test func refreshRefusedByTheProviderEndsTheSession() async throws {
        let harness = await Harness(flows: [Flows.refreshRevoke])
        let flow = Flows.refreshRevoke
        let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random())
        let session = try #require(harness.session(of: await harness.send(flow.steps[0].exchange!.request, signIn.placeholderValues)))
        await harness.provider.setTokenEndpointOverride(.error("invalid_grant"))
        let renewed = await harness.send(flow.steps[2].exchange!.request, ["session": session])
        #expect(renewed.status == 401)
        #expect(await harness.backend.isSessionAlive(session) == false)
    }

    @Test func liveSessionOnAStepThatOnlyExpectsFailureGetsAnAnswer() async throws {
        let harness = await Harness(flows: [Flows.refreshRevoke])
        let flow = Flows.refreshRevoke
        let signIn = await harness.provider.signIn(clientID: Flows.webClientID, rawNonce: "n", user: MockUser.random())
        let session = try #require(harness.session(of: await harness.send(flow.steps[0].exchange!.request, signIn.placeholderValues)))
        let me = await harness.send(flow.steps[7].exchange!.request, ["renewed_session": session])
        #expect(me.status == 200)
    }

    @Test func passwordFlowPicksTheBranchByCredentials() async throws {
        let harness = await Harness(flows: [Flows.password])
        let flow = Flows.password
        let login = flow.steps[0].exchange!.request
        let values = ["username": "demo.user", "password": "FinFlow-Demo-2025"]
        let ok = await harness.send(login, values)
        #expect(ok.status == 200)
        let token = try #require(harness.session(of: ok, path: "$.token"))
        let wrongBranch = await harness.send(flow.steps[0].alternates[1].request!, values)
        #expect(wrongBranch.status == 401)
        #expect(wrongBranch.json("$.token") == nil)
        let anyWrong = await harness.send(login, ["username": "demo.user", "password": "guess"])
        #expect(anyWrong.status == 401)
        let profile = await harness.send(flow.steps[1].exchange!.request, ["token": token])
        #expect(profile.status == 200)
        #expect(profile.json("$.email")?.typeName == .string)
        let expired = await harness.send(flow.steps[1].alternates[1].request!, ["token": token])
        #expect(expired.status == 401)
        let none = await harness.backend.handle(MockHTTPRequest(method: "GET", target: "/api/users/my-profile"))
        #expect(none.status == 401)
    }

    @Test func webRegistrationBranchesByInput() async throws {
        let harness = await Harness(flows: [Flows.web])
        let (login, signIn) = await harness.webSignIn()
        let session = try #require(harness.session(of: login))
        let step = Flows.web.steps[3]
        var values = signIn.placeholderValues
        values["session"] = session
        #expect(await harness.send(step.exchange!.request, values).status == 201)
        #expect(await harness.send(step.alternates[1].request!, values).status == 422)
        values["session"] = "fs_not-a-session"
        #expect(await harness.send(step.exchange!.request, values).status == 401)
    }

    @Test func unknownRoutesAndMismatchedBodies() async throws {
        let harness = await Harness(flows: [Flows.web])
        #expect(await harness.backend.handle(MockHTTPRequest(method: "GET", target: "/nope")).status == 404)
        let garbage = await harness.backend.handle(MockHTTPRequest(method: "POST", target: "/api/v1/auth/apple/login", body: Array("{".utf8)))
        #expect((400..<500).contains(garbage.status))
        #expect(harness.backend.routeDescriptions == ["POST /api/v1/auth/apple/login", "POST /api/v1/accounts"])
    }

    @Test func embeddedMocksServeOverRealSockets() async throws {
        let mocks = try await EmbeddedMocks.start(flows: Flows.all, link: .http, keys: TestKeys.provider)
        let transport = NetworkTransport(timeout: 10)
        let signIn = await mocks.provider.signIn(clientID: Flows.webClientID, rawNonce: "socket", user: MockUser.random())
        let template = Flows.web.steps[1].exchange!.request
        let body = TemplatePattern(template.body!).interpolate(signIn.placeholderValues)
        let request = MockHTTPRequest(method: "POST", target: template.target, headers: [HeaderField(name: "Content-Type", value: "application/json")], body: Array(body.utf8))
        let response = try await transport.send(request, to: mocks.backendURL.appendingPathComponent("api/v1/auth/apple/login"))
        #expect(response.status == 200)
        #expect(await mocks.provider.records(at: .token).first?.clientSecret?.violations == [])
        #expect(mocks.registrations.map(\.clientID).sorted() == [Flows.nativeClientID, Flows.webClientID])
        await mocks.stop()
    }
}
