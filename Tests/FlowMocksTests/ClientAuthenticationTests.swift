import FlowModel
import FlowParser
import Foundation
import JOSE
import Testing
@testable import FlowMocks

/// Client authentication at a profile's token endpoint, by each method the profiles accept, and
/// the registration file that declares the clients (secrets from the environment or a file,
/// never printed).
@Suite struct ClientAuthenticationTests {
    static let google = BuiltinProviders.profiles["google"]!
    static let microsoft = BuiltinProviders.profiles["microsoft"]!.resolved(variables: ["tenant_id": "tenant-1"])
    static let base = URL(string: "http://idp.test:4000")!

    func provider(_ profile: ProviderProfile, _ registration: ClientRegistration) async -> MockProvider {
        let provider = MockProvider(profile: profile, registrations: [registration], random: SeededRandom(seed: 9), keys: TestKeys.provider)
        await provider.setBaseURL(Self.base)
        return provider
    }

    /// A code for `clientID`, exchanged with `fields` and `headers`; returns the status and
    /// the recorded violations.
    func exchange(_ provider: MockProvider, clientID: String, fields: [(String, String)], headers: [HeaderField] = []) async -> (Int, [ClientSecretViolation], String?) {
        let signIn = await provider.signIn(clientID: clientID, rawNonce: "n", user: MockUser.random(using: SeededRandom(seed: 3)), nonce: .verbatim)
        let request = MockHTTPRequest.form(provider.profile.endpoints.token, fields + [("code", signIn.code!), ("grant_type", "authorization_code")], headers: headers)
        let response = await provider.handle(request)
        let record = await provider.records(at: .token).last
        return (response.status, record?.clientSecret?.violations ?? [], record?.clientSecret?.method)
    }

    @Test func sharedSecretByPostAndBasic() async throws {
        let registration = ClientRegistration(provider: "google", clientID: "web.apps", clientSecret: "s3cret with space")
        let provider = await provider(Self.google, registration)
        let post = await exchange(provider, clientID: "web.apps", fields: [("client_id", "web.apps"), ("client_secret", "s3cret with space")])
        #expect(post.0 == 200 && post.1.isEmpty && post.2 == "client_secret_post")
        let wrong = await exchange(provider, clientID: "web.apps", fields: [("client_id", "web.apps"), ("client_secret", "guess")])
        #expect(wrong.0 == 400 && wrong.1 == [.secretMismatch])
        // RFC 6749 §2.3.1: both parts form-urlencoded, then Basic.
        let basic = "Basic " + Data("web.apps:s3cret+with+space".utf8).base64EncodedString()
        let viaBasic = await exchange(provider, clientID: "web.apps", fields: [], headers: [HeaderField(name: "Authorization", value: basic)])
        #expect(viaBasic.0 == 200 && viaBasic.1.isEmpty && viaBasic.2 == "client_secret_basic", "\(viaBasic)")
        let both = await exchange(provider, clientID: "web.apps", fields: [("client_id", "web.apps"), ("client_secret", "s3cret with space")],
                                  headers: [HeaderField(name: "Authorization", value: basic)])
        #expect(both.1.contains(.severalMethods))
        let none = await exchange(provider, clientID: "web.apps", fields: [("client_id", "web.apps")])
        #expect(none.0 == 400 && none.1 == [.missing])
    }

    @Test func privateKeyJWTAssertion() async throws {
        let key = try ECKey.generate()
        let registration = ClientRegistration(provider: "microsoft", clientID: "6731de76", keyID: "k1", publicKeyPEM: key.publicKeyPEM)
        let provider = await provider(Self.microsoft, registration)
        let tokenURL = Self.base.absoluteString + Self.microsoft.endpoints.token
        let credentials = ClientCredentials.privateKeyJWT(clientID: "6731de76", key: key, keyID: "k1")
        let good = credentials.authentication(endpointURL: tokenURL, now: Int64(Date().timeIntervalSince1970), jti: "jti-1", der: false)
        let accepted = await exchange(provider, clientID: "6731de76", fields: good.fields)
        #expect(accepted.0 == 200 && accepted.1.isEmpty && accepted.2 == "private_key_jwt", "\(accepted)")
        // The same assertion again: its jti was used.
        let replayed = await exchange(provider, clientID: "6731de76", fields: good.fields)
        #expect(replayed.1.contains(.jtiReused))
        // Signed by another key, for another audience.
        let other = ClientCredentials.privateKeyJWT(clientID: "6731de76", key: try ECKey.generate(), keyID: "k1")
        let forged = other.authentication(endpointURL: "https://elsewhere.example/token", now: Int64(Date().timeIntervalSince1970), jti: "jti-2", der: false)
        let refused = await exchange(provider, clientID: "6731de76", fields: forged.fields)
        #expect(refused.0 == 400 && refused.1.contains(.signatureInvalid) && refused.1.contains(.audMismatch), "\(refused)")
        // A shared secret where the profile accepts it but none is registered.
        let post = await exchange(provider, clientID: "6731de76", fields: [("client_id", "6731de76"), ("client_secret", "x")])
        #expect(post.1 == [.notRegisteredForMethod])
        // Apple's method is not one Microsoft accepts.
        let google = await self.provider(Self.google, ClientRegistration(provider: "google", clientID: "g", clientSecret: "s"))
        let assertion = await exchange(google, clientID: "g", fields: ClientCredentials.privateKeyJWT(clientID: "g", key: key, keyID: nil)
            .authentication(endpointURL: "x", now: 0, jti: "j", der: false).fields)
        #expect(assertion.1.contains(.methodNotAllowed))
    }

    @Test func discoveryDocumentPointsAtTheMock() async throws {
        let provider = await provider(Self.microsoft, ClientRegistration(provider: "microsoft", clientID: "c", clientSecret: "s"))
        let response = await provider.handle(MockHTTPRequest(method: "GET", target: "/tenant-1/v2.0/.well-known/openid-configuration"))
        #expect(response.status == 200)
        let document = try #require(try StrictJSON.parseObject(response.body))
        #expect(document.string("issuer") == "https://login.microsoftonline.com/tenant-1/v2.0")
        #expect(document.string("jwks_uri") == "http://idp.test:4000/tenant-1/discovery/v2.0/keys")
        #expect(document.string("token_endpoint") == "http://idp.test:4000/tenant-1/oauth2/v2.0/token")
        #expect(document["revocation_endpoint"] == nil, "Entra ID v2 has no revocation endpoint")
        // Apple's paths are not served by the Microsoft mock.
        #expect(await provider.handle(MockHTTPRequest(method: "GET", target: "/auth/keys")).status == 404)
    }

    /// A backend in a container reaches the mock under another name: the discovery document,
    /// `{{provider.url}}` issuers and `jku` URLs say that name, while the mock listens locally.
    @Test func advertisedBaseURLGoesIntoDiscoveryAndIssuer() async throws {
        let oidc = try #require(BuiltinProviders.profiles["oidc"])
        let provider = MockProvider(profile: oidc, registrations: [], keys: TestKeys.provider)
        let advertised = try #require(URL(string: "http://flowspec-idp:9999"))
        let listening = try await provider.start(host: "127.0.0.1", port: 0, advertised: advertised)
        defer { Task { await provider.stop() } }
        #expect(listening.host == "127.0.0.1" && listening.port != 9999)
        let document = try #require(try StrictJSON.parseObject(await provider.handle(MockHTTPRequest(method: "GET", target: "/.well-known/openid-configuration")).body))
        #expect(document.string("issuer") == "http://flowspec-idp:9999")
        #expect(document.string("jwks_uri") == "http://flowspec-idp:9999/jwks")
        #expect(await provider.issuer == "http://flowspec-idp:9999")
        await provider.stop()
    }

    @Test func honestTokensCarryTheProfilesClaimsWithTheirTypes() async throws {
        let provider = await provider(Self.google, ClientRegistration(provider: "google", clientID: "g.apps", clientSecret: "s"))
        let signIn = await provider.signIn(clientID: "g.apps", rawNonce: "nonce-1", user: MockUser.random(using: SeededRandom(seed: 5), profile: Self.google), nonce: .verbatim)
        let token = try #require(signIn.idToken)
        let claims = try #require(try JWS.parse(token).payload)
        #expect(claims.string("iss") == "https://accounts.google.com")
        #expect(claims.string("azp") == "g.apps")
        #expect(claims["email_verified"] == .bool(true), "Google's email_verified is a JSON boolean")
        #expect(claims.string("nonce") == "nonce-1", "verbatim: the nonce as sent")
        #expect(claims["is_private_email"] == nil && claims["c_hash"] == nil)
        #expect(claims.string("sub")?.count == 21 && claims.string("sub")?.allSatisfy(\.isNumber) == true)
        #expect(claims.string("email")?.hasSuffix("@gmail.com") == true)
        let hashed = await provider.signIn(clientID: "g.apps", rawNonce: "nonce-1", user: MockUser.random(using: SeededRandom(seed: 5)), nonce: .sha256)
        let hashedToken = try #require(hashed.idToken)
        let hashedClaims = try #require(try JWS.parse(hashedToken).payload)
        #expect(hashedClaims.string("nonce") == Digest.sha256(Array("nonce-1".utf8)).map { String(format: "%02x", $0) }.joined())
    }

    @Test func registrationFileTakesSecretsFromTheEnvironmentOrAFileAndNeverPrintsThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-reg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "file-secret-value\n".write(to: directory.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        let json = #"""
            [{"provider": "google", "client_id": "web", "client_secret_env": "GOOGLE_SECRET", "redirect_uri": "https://a.example/cb"},
             {"provider": "oidc", "client_id": "cli", "client_secret_file": "secret.txt"},
             {"provider": "apple", "client_id": "com.a", "team_id": "T", "key_id": "K", "public_key_pem": "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----\n"}]
            """#
        let loaded = try ClientRegistration.load(json: Array(json.utf8), directory: directory.path, environment: ["GOOGLE_SECRET": "env-secret-value"], source: "r.json")
        #expect(loaded.map(\.clientID) == ["web", "cli", "com.a"])
        #expect(loaded[0].clientSecret == "env-secret-value" && loaded[1].clientSecret == "file-secret-value")
        #expect(loaded[0].applies(to: "google") && !loaded[0].applies(to: "apple"))
        for registration in loaded { #expect(!"\(registration)".contains("secret-value"), "\(registration)") }
        #expect(throws: ClientRegistration.LoadError.self) {
            try ClientRegistration.load(json: Array(json.utf8), directory: directory.path, environment: [:], source: "r.json")
        }
        #expect(throws: ClientRegistration.LoadError.self) {
            try ClientRegistration.load(json: Array(#"{"client_id": "x", "clientsecret": "y"}"#.utf8), directory: "", environment: [:], source: "r.json")
        }
    }
}
