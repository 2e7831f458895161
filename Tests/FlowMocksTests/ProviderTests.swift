import FlowModel
import Foundation
import JOSE
import Testing
@testable import FlowMocks

@Suite struct ProviderTests {
    let clock = TestClock()

    func makeProvider(_ registrations: [ClientRegistration]? = nil) async -> MockProvider {
        let provider = MockProvider(
            registrations: registrations ?? [registration()], clock: clock.function, random: SeededRandom(seed: 7), keys: TestKeys.provider)
        await provider.setBaseURL(URL(string: "http://provider.test:4000")!)
        return provider
    }

    func registration(_ clientID: String = Flows.webClientID, redirect: String? = nil) -> ClientRegistration {
        ClientRegistration(clientID: clientID, teamID: "TEAM123456", keyID: "KEY1234567", publicKeyPEM: TestKeys.client.publicKeyPEM, redirectURI: redirect)
    }

    func secret(clientID: String = Flows.webClientID, header: JSONObject? = nil, claims: (inout JSONObject) -> Void = { _ in }, der: Bool = false, key: ECKey = TestKeys.client) throws -> String {
        let now = Int64(clock.now.timeIntervalSince1970)
        let h = header ?? ["alg": "ES256", "kid": "KEY1234567"]
        var c: JSONObject = ["iss": "TEAM123456", "iat": .int(now), "exp": .int(now + 3600), "aud": "https://appleid.apple.com", "sub": .string(clientID)]
        claims(&c)
        let input = JWS.signingInput(header: h.jsonBytes(), payload: c.jsonBytes())
        return JWS.compact(header: h.jsonBytes(), payload: c.jsonBytes(), signature: der ? try key.signDER(input) : try key.sign(input))
    }

    func tokenRequest(_ fields: [(String, String)]) -> MockHTTPRequest { .form(ApplePaths.token, fields) }

    @Test func jwksLooksLikeApples() async throws {
        let provider = await makeProvider()
        let response = await provider.handle(MockHTTPRequest(method: "GET", target: "/auth/keys"))
        #expect(response.status == 200)
        let object = try #require(try StrictJSON.parseObject(response.body))
        let keys = try #require(object["keys"]?.arrayValue)
        #expect(keys.count == 3)
        for key in keys {
            let members = try #require(key.objectValue)
            #expect(members.names == ["kty", "kid", "use", "alg", "n", "e"])
            #expect(members.string("alg") == "RS256")
            #expect(members.string("e") == "AQAB")
        }
        let record = try #require(await provider.records().last)
        #expect(record.endpoint == .jwks)
        #expect(record.servedKeyIDs == (await provider.keyIDs()))
    }

    @Test func idTokenHeaderAndClaimsAreApplesShape() async throws {
        let provider = await makeProvider()
        let user = MockUser.random(using: SeededRandom(seed: 3))
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: "abc", user: user)
        let parsed = try JWS.parse(try #require(signIn.idToken))
        #expect(parsed.header.names == ["kid", "alg"])
        #expect(parsed.header.string("kid") == (await provider.currentKeyID()))
        let claims = try #require(parsed.payload)
        #expect(claims.string("iss") == "https://appleid.apple.com")
        #expect(claims.string("aud") == Flows.webClientID)
        #expect(claims.string("sub") == user.sub)
        #expect(claims.string("nonce") == TokenMinter.sha256Hex("abc"))
        #expect(claims.string("email_verified") == "true")
        #expect(claims.int64("exp") == Int64(clock.now.timeIntervalSince1970) + 600)
        #expect(user.sub.range(of: #"^\d{6}\.[0-9a-f]{32}\.\d{4}$"#, options: .regularExpression) != nil)
        let jwks = try JWKS.decode(json: Array((await provider.jwksJSON()).utf8)).set
        #expect(throws: Never.self) { try JWTVerifier().verifyOrThrow(signIn.idToken!, jwks: jwks) }
    }

    /// A judged sign-in is forgotten whole — its codes, the tokens they were exchanged for and
    /// refreshed into, and the records carrying them — while another sign-in in flight keeps
    /// everything it had.
    @Test func aForgottenSignInLeavesNothingAndTouchesNoOther() async throws {
        let provider = await makeProvider()
        func signInAndRefresh(_ seed: UInt64) async throws -> (code: String, refresh: String, access: String, sub: String) {
            let user = MockUser.random(using: SeededRandom(seed: seed))
            let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: user)
            let code = try #require(signIn.code)
            let exchanged = await provider.handle(tokenRequest([
                ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", code), ("grant_type", "authorization_code"),
            ]))
            guard case .string(let refresh)? = exchanged.json("$.refresh_token") else { throw CancellationError() }
            let refreshed = await provider.handle(tokenRequest([
                ("client_id", Flows.webClientID), ("client_secret", try secret()), ("refresh_token", refresh), ("grant_type", "refresh_token"),
            ]))
            guard case .string(let access)? = refreshed.json("$.access_token") else { throw CancellationError() }
            return (code, refresh, access, user.sub)
        }
        let judged = try await signInAndRefresh(11)
        let fresh = await provider.freshCode(
            for: await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser(sub: judged.sub, email: "a@b.c")),
            clientID: Flows.webClientID)
        let inFlight = try await signInAndRefresh(12)
        let jwks = await provider.handle(MockHTTPRequest(method: "GET", target: "/auth/keys"))
        #expect(jwks.status == 200)
        func carried(_ secrets: [String]) async -> [RecordedRequest] { await provider.records(carrying: Set(secrets.map { Secret.elide($0) })) }
        #expect(await carried([judged.code, judged.refresh]).count == 2)
        let before = await provider.records().count

        await provider.forget(codes: [judged.code, fresh])

        // Nothing of the judged sign-in is left.
        #expect(await carried([judged.code, judged.refresh, judged.access, fresh]).isEmpty)
        #expect(await provider.refreshTokens(for: judged.sub).isEmpty)
        #expect(await provider.isRevoked(judged.refresh) == nil)
        #expect(await provider.isRevoked(judged.access) == nil)
        let replayed = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("refresh_token", judged.refresh), ("grant_type", "refresh_token"),
        ]))
        #expect(replayed.json("$.error") == .string("invalid_grant"))
        // The other sign-in and the records carrying no secret are untouched.
        #expect(await carried([inFlight.code, inFlight.refresh]).count == 2)
        #expect(await provider.refreshTokens(for: inFlight.sub) == [inFlight.refresh])
        #expect(await provider.isRevoked(inFlight.access) == false)
        #expect(await provider.records().count == before - 2 + 1)  // the judged exchange and refresh gone; the replay above added one
        #expect(await provider.records().contains { $0.endpoint == .jwks })
    }

    /// Forgotten codes leave the expiry order in batches; a live code keeps its place and works.
    @Test func forgottenCodesLeaveTheExpiryOrder() async throws {
        let provider = await makeProvider()
        let live = try #require(await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser.random(using: SeededRandom(seed: 1))).code)
        for n in 0..<1100 {
            let code = await provider.freshCode(
                for: await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser(sub: "s\(n)", email: "a@b.c"), outcome: .denied),
                clientID: Flows.webClientID)
            await provider.forget(codes: [code])
        }
        let remaining = await provider.codeOrder.count - (await provider.codeOrderStart)
        #expect(remaining < 1 + 1024)
        #expect(await provider.codeOrder.contains { $0.code == live })
        let exchanged = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", live), ("grant_type", "authorization_code"),
        ]))
        #expect(exchanged.status == 200)
    }

    @Test func codeExchangeIsSingleUseAndRecordedWithoutSecrets() async throws {
        let provider = await makeProvider()
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser.random(using: SeededRandom(seed: 4)))
        let code = try #require(signIn.code)
        let clientSecret = try secret()
        let fields = [("client_id", Flows.webClientID), ("client_secret", clientSecret), ("code", code), ("grant_type", "authorization_code")]
        let first = await provider.handle(tokenRequest(fields))
        #expect(first.status == 200)
        let body = try #require(first.jsonBody)
        for member in ["access_token", "refresh_token", "id_token", "token_type", "expires_in"] {
            #expect(JSONPath(parsing: "$.\(member)")!.evaluate(in: body) != nil)
        }
        let second = await provider.handle(tokenRequest(fields))
        #expect(second.status == 400)
        #expect(second.json("$.error") == .string("invalid_grant"))
        #expect(second.json("$.error_description") == .string("The code has already been used."))

        let records = await provider.records(at: .token)
        #expect(records.count == 2)
        #expect(records[0].clientSecret?.violations == [])
        #expect(records[0].grantType == "authorization_code")
        #expect(records[1].error == "invalid_grant")
        let dump = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
        #expect(!dump.contains(clientSecret))
        #expect(!dump.contains(code))
        #expect(records[0].fields["code"] == String(code.prefix(8)) + "…")
    }

    @Test func codesExpireAfterFiveMinutes() async throws {
        let provider = await makeProvider()
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser.random(using: SeededRandom(seed: 5)))
        clock.advance(by: 301)
        let response = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", signIn.code!), ("grant_type", "authorization_code"),
        ]))
        #expect(response.status == 400)
        #expect(response.json("$.error") == .string("invalid_grant"))
    }

    static let violationCases: [(String, ClientSecretViolation)] = [
        ("alg", .algNotES256), ("kid", .kidMismatch), ("iss", .issMismatch), ("sub", .subMismatch), ("aud", .audMismatch),
        ("iat-missing", .iatMissing), ("iat-future", .iatInFuture), ("exp-missing", .expMissing), ("exp-past", .expNotAfterNow),
        ("exp-far", .expTooFar), ("der", .signatureDER), ("other-key", .signatureInvalid),
    ]

    @Test(arguments: violationCases)
    func clientSecretViolationsAreNamed(_ mutation: String, _ violation: ClientSecretViolation) async throws {
        let provider = await makeProvider()
        let now = Int64(clock.now.timeIntervalSince1970)
        var header: JSONObject = ["alg": "ES256", "kid": "KEY1234567"]
        if mutation == "alg" { header["alg"] = "ES384" }
        if mutation == "kid" { header["kid"] = "OTHERKEY00" }
        let token = try secret(header: header, claims: { c in
            switch mutation {
            case "iss": c["iss"] = "OTHERTEAM0"
            case "sub": c["sub"] = "com.other.app"
            case "aud": c["aud"] = "https://appleid.apple.com/"
            case "iat-missing": c["iat"] = nil
            case "iat-future": c["iat"] = .int(now + 600)
            case "exp-missing": c["exp"] = nil
            case "exp-past": c["exp"] = .int(now - 1)
            case "exp-far": c["exp"] = .int(now + FlowMocks.maxClientSecretLifetime + 10)
            default: break
            }
        }, der: mutation == "der", key: mutation == "other-key" ? TestKeys.otherClient : TestKeys.client)
        let response = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", token), ("code", "whatever"), ("grant_type", "authorization_code"),
        ]))
        #expect(response.status == 400)
        #expect(response.json("$.error") == .string("invalid_client"))
        let record = try #require(await provider.records().last)
        #expect(record.clientSecret?.violations == [violation])
    }

    @Test func unknownGrantTypeAndMissingFields() async throws {
        let provider = await makeProvider()
        let bad = await provider.handle(tokenRequest([("client_id", Flows.webClientID), ("client_secret", try secret()), ("grant_type", "password")]))
        #expect(bad.json("$.error") == .string("unsupported_grant_type"))
        let missing = await provider.handle(tokenRequest([("client_secret", try secret()), ("grant_type", "authorization_code")]))
        #expect(missing.json("$.error") == .string("invalid_request"))
        let unknown = await provider.handle(tokenRequest([("client_id", "com.unknown"), ("client_secret", try secret(clientID: "com.unknown")), ("grant_type", "authorization_code")]))
        #expect(unknown.json("$.error") == .string("invalid_client"))
        #expect(await provider.records().last?.clientSecret?.violations == [.unknownClient])
    }

    @Test func revokeAnswersEmptyEvenForUnknownTokensAndRevokesRefreshTokens() async throws {
        let provider = await makeProvider()
        let unknown = await provider.handle(.form(ApplePaths.revoke, [
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("token", "nope"), ("token_type_hint", "refresh_token"),
        ]))
        #expect(unknown.status == 200)
        #expect(unknown.body.isEmpty)
        let badSecret = await provider.handle(.form(ApplePaths.revoke, [
            ("client_id", Flows.webClientID), ("client_secret", try secret(key: TestKeys.otherClient)), ("token", "nope"),
        ]))
        #expect(badSecret.status == 400)
        #expect(badSecret.json("$.error") == .string("invalid_client"))

        let user = MockUser.random(using: SeededRandom(seed: 9))
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: user)
        let exchanged = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", signIn.code!), ("grant_type", "authorization_code"),
        ]))
        guard case .string(let refresh)? = exchanged.json("$.refresh_token") else { Issue.record("no refresh token"); return }
        let refreshed = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("refresh_token", refresh), ("grant_type", "refresh_token"),
        ]))
        #expect(refreshed.status == 200)
        #expect(refreshed.json("$.refresh_token") == nil)
        let revoked = await provider.handle(.form(ApplePaths.revoke, [
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("token", refresh), ("token_type_hint", "refresh_token"),
        ]))
        #expect(revoked.status == 200)
        #expect(await provider.records().last?.fields["recognized"] == "refresh_token")
        #expect(await provider.isRevoked(refresh) == true)
        let after = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("refresh_token", refresh), ("grant_type", "refresh_token"),
        ]))
        #expect(after.json("$.error") == .string("invalid_grant"))
    }

    @Test func tokenEndpointOverridesDriveTheExchangeCases() async throws {
        let provider = await makeProvider()
        let user = MockUser.random(using: SeededRandom(seed: 10))
        func exchange() async throws -> MockHTTPResponse {
            let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: user)
            return await provider.handle(tokenRequest([
                ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", signIn.code!), ("grant_type", "authorization_code"),
            ]))
        }
        #expect(TokenEndpointOverride.variants(for: "X2").count == 2)
        await provider.setTokenEndpointOverride(.error("invalid_grant"))
        #expect(try await exchange().json("$.error") == .string("invalid_grant"))
        await provider.setTokenEndpointOverride(.differentSubject)
        guard case .string(let token)? = try await exchange().json("$.id_token") else { Issue.record("no id_token"); return }
        let sub = try JWS.parse(token).payload?.string("sub")
        #expect(sub != nil && sub != user.sub)
        await provider.setTokenEndpointOverride(.wrongAudience)
        guard case .string(let wrongAud)? = try await exchange().json("$.id_token") else { Issue.record("no id_token"); return }
        #expect(try JWS.parse(wrongAud).payload?.string("aud") == "com.attacker.app")
        await provider.setTokenEndpointOverride(nil)
        guard case .string(let honest)? = try await exchange().json("$.id_token") else { Issue.record("no id_token"); return }
        #expect(try JWS.parse(honest).payload?.string("sub") == user.sub)
    }

    @Test func rotationServesTheNewKidOnlyInLaterJWKS() async throws {
        let provider = await makeProvider()
        let before = await provider.jwksJSON()
        let signIn = await provider.signIn(clientID: Flows.webClientID, rawNonce: nil, user: MockUser.random(), forgery: .variant(caseID: "P5", index: 0))
        let kid = try #require(try JWS.parse(signIn.idToken!).keyID)
        #expect(!before.contains(kid))
        #expect((await provider.jwksJSON()).contains(kid))
        #expect(await provider.currentKeyID() == kid)
    }

    @Test func notificationsCarryAStringifiedEventsObject() async throws {
        let provider = await makeProvider()
        let jwt = await provider.mintNotification(clientID: Flows.webClientID, event: NotificationEvent(kind: .consentRevoked, sub: "001.abc.002", jti: "jti-1"))
        let claims = try #require(try JWS.parse(jwt).payload)
        #expect(claims.names == ["iss", "aud", "iat", "exp", "jti", "events"])
        #expect(claims.string("jti") == "jti-1")
        let eventsText = try #require(claims.string("events"))
        let events = try #require(try StrictJSON.parseObject(Array(eventsText.utf8)))
        #expect(events.string("type") == "consent-revoked")
        #expect(events.string("sub") == "001.abc.002")
        #expect(events.int64("event_time") == Int64(clock.now.timeIntervalSince1970) * 1000)
        #expect(NotificationBody.json(for: "a.b.c") == #"{"payload":"a.b.c"}"#)
    }

    @Test func authorizeSimulatesApproveDenyAndFailure() async throws {
        let provider = await makeProvider([registration(redirect: "https://app.example/cb")])
        let base = "/auth/authorize?client_id=\(Flows.webClientID)&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&response_type=code%20id_token&scope=name%20email&state=st8&nonce=n0nce"
        let approved = await provider.handle(MockHTTPRequest(method: "GET", target: base + "&response_mode=form_post"))
        #expect(approved.status == 200)
        #expect(approved.bodyText.contains("name=\"code\""))
        #expect(approved.bodyText.contains("name=\"id_token\""))
        #expect(approved.bodyText.contains("value=\"st8\""))
        let denied = await provider.handle(MockHTTPRequest(method: "GET", target: base + "&flowspec_outcome=denied"))
        #expect(denied.status == 302)
        #expect(denied.header("Location")?.contains("error=user_cancelled_authorize") == true)
        let failed = await provider.handle(MockHTTPRequest(method: "GET", target: base + "&flowspec_outcome=authentication-failed"))
        #expect(failed.status == 200)
        #expect(!failed.bodyText.contains("code"))
        let side = await provider.signIn(clientID: Flows.webClientID, rawNonce: "x", user: MockUser.random(), outcome: .denied)
        #expect(side.code == nil && side.idToken == nil && side.error == "user_cancelled_authorize")
        // A code from authorize is bound to its redirect_uri.
        let location = try #require(approved.bodyText.range(of: #"name="code" value="[^"]+""#, options: .regularExpression))
        let code = String(approved.bodyText[location].split(separator: "\"")[3])
        let noRedirect = await provider.handle(tokenRequest([
            ("client_id", Flows.webClientID), ("client_secret", try secret()), ("code", code), ("grant_type", "authorization_code"),
        ]))
        #expect(noRedirect.status == 400)
    }

    @Test func servesOnARealSocketAndStops() async throws {
        let provider = await makeProvider()
        let url = try await provider.start(port: 0)
        #expect(url.port != nil && url.port != 0)
        let transport = NetworkTransport(timeout: 30)  // generous: the suite runs many servers at once on 2 cores
        let response = try await transport.send(MockHTTPRequest(method: "GET", target: "/auth/keys"), to: url.appendingPathComponent("auth/keys"))
        #expect(response.status == 200)
        let configuration = try await transport.send(MockHTTPRequest(method: "GET", target: "/"), to: url.appendingPathComponent(".well-known/openid-configuration"))
        #expect(configuration.json("$.jwks_uri") == .string(url.absoluteString + "/auth/keys"))
        await provider.stop()
        await #expect(throws: (any Error).self) {
            _ = try await transport.send(MockHTTPRequest(method: "GET", target: "/auth/keys"), to: url.appendingPathComponent("auth/keys"))
        }
    }
}

/// The record log forgets in batches: what is forgotten never shows again, what is kept keeps
/// its order and its index, and the batch really drops the records.
@Suite struct RecordLogTests {
    static func record(_ sequence: Int, code: String?) -> RecordedRequest {
        RecordedRequest(
            sequence: sequence, time: Date(timeIntervalSince1970: 0), method: "POST", path: "/auth/token", endpoint: code == nil ? .jwks : .token,
            fields: code.map { ["code": $0] } ?? [:], grantType: nil, clientID: nil, clientSecret: nil, status: 200, error: nil, servedKeyIDs: nil)
    }

    @Test func forgottenRecordsGoAndTheRestKeepTheirOrderAndIndex() {
        var log = RecordLog(limit: 10_000)
        for n in 1...300 { log.append(Self.record(n, code: n % 3 == 0 ? nil : "c\(n)")) }
        // Forgotten one by one: below the batch size the records are hidden, then dropped.
        let forgotten = (1...300).filter { $0 % 3 != 0 && $0 <= 250 }
        for n in forgotten.prefix(10) { log.forget(carrying: ["c\(n)"]) }
        #expect(log.records.count == 290)
        for n in forgotten.dropFirst(10) { log.forget(carrying: ["c\(n)"]) }
        let kept = (1...300).filter { $0 % 3 == 0 || $0 > 250 }
        #expect(log.records.map(\.sequence) == kept)
        #expect(log.records(carrying: Set(forgotten.map { "c\($0)" })).isEmpty)
        #expect(log.records(carrying: ["c251", "c299", "c1"]).map(\.sequence) == [251, 299])
        // Dropped in batches: what is still held beyond the kept records is less than one batch.
        #expect(log.storedCount >= kept.count && log.storedCount < kept.count + 64)
    }
}
