import FlowModel
import FlowParser
import Foundation
import JOSE

/// The mock identity provider: flowspec plays the provider a flow names, as its profile
/// (`ProviderProfile`) describes it — issuers, paths, discovery document, client
/// authentication, the claims of an honest ID token. Serves a JWKS of per-run RS256 keys,
/// answers the token, revocation and userinfo endpoints, simulates the authorize step, mints
/// honest and forged ID tokens (and Apple's notifications), and records every request made to
/// it (secrets elided) so checks can assert on what the backend did — and did not — do.
///
/// The checker drives it in-process through the "side door" (`signIn`, `mintNotification`…);
/// the backend under test reaches it over HTTP. Keys are generated on first use, once per
/// provider: a run whose flows never sign in generates none.
public actor MockProvider: MockHTTPHandler {
    /// Served so that a backend that follows `jku` (S8) is recorded doing it.
    public static let attackerJWKSPath = "/attacker/jwks.json"
    public static let attackerX5UPath = "/attacker/key.pem"

    private enum JWKSEntry {
        case signing(ProviderKey)
        case unusable(JSONObject)
    }

    private struct CodeGrant {
        var clientID: String
        var user: MockUser
        var nonceClaim: String?
        var issuedAt: Int64
        var redirectURI: String?
        var used = false
    }

    private struct TokenGrant {
        var clientID: String
        var user: MockUser
        var nonceClaim: String?
        var kind: String
        var parent: String?
        var revoked = false
    }

    /// The profile played, its `{{variables}}` already filled in for the flows it serves.
    public nonisolated let profile: ProviderProfile
    private var registrations: [String: ClientRegistration] = [:]
    private let clock: @Sendable () -> Date
    private let random: any RandomSource
    /// Key material given by the caller (tests share one set); nil = generate on first use.
    private let givenMaterial: ProviderKeyMaterial?
    private var entries: [JWKSEntry] = []
    private var signingKey: ProviderKey?
    private var spares: [RSAKey] = []
    private var attackerKey: RSAKey?
    private let attackerKeyID: String
    private var seenAssertionIDs = Set<String>()
    private var codes: [String: CodeGrant] = [:]
    private var tokens: [String: TokenGrant] = [:]
    private var override: TokenEndpointOverride?
    /// Records kept (the newest): bounded memory for a mock that runs for days.
    static let recordLimit = 100_000
    private var log = RecordLog(limit: MockProvider.recordLimit)
    /// Codes in order of issue, so expired ones are dropped from the front.
    private var codeOrder: [(issuedAt: Int64, code: String)] = []
    private var codeOrderStart = 0
    /// Refresh tokens per `sub`, and the tokens issued under each refresh token.
    private var refreshBySub: [String: [String]] = [:]
    private var children: [String: [String]] = [:]
    private var sequence = 0
    private let server = MockHTTPServer()
    private var configuredBaseURL: URL?
    /// The user of manual sign-ins through the authorization endpoint.
    public let defaultUser: MockUser

    /// - Parameters:
    ///   - profile: the provider to play (resolved: `{{tenant_id}}` filled in); Apple by default.
    ///   - registrations: clients the provider can authenticate.
    ///   - keys: RSA key material; when nil, 3 signing keys are generated on first use, an
    ///     attacker key when a forgery needs one, and a new key per rotation.
    public init(
        profile: ProviderProfile? = nil,
        registrations: [ClientRegistration],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        keys: ProviderKeyMaterial? = nil
    ) {
        let profile = profile ?? BuiltinProviders.profiles["apple"]!
        self.profile = profile
        self.givenMaterial = keys
        self.clock = clock
        self.random = random
        self.attackerKeyID = random.keyID()
        self.defaultUser = MockUser.random(using: random, profile: profile)
        for registration in registrations where registration.applies(to: profile.id) {
            self.registrations[registration.clientID] = registration
        }
    }

    // MARK: Lifecycle

    /// Starts serving on `host:port` (0 = any free port) and returns the URL it listens on.
    /// `advertised` is the base URL the backend reaches it at, when that differs (a backend in a
    /// container): it goes into the discovery document, `{{provider.url}}` issuers and `jku`.
    public func start(host: String = "127.0.0.1", port: Int = 0, advertised: URL? = nil) async throws -> URL {
        let url = try await server.start(host: host, port: port, handler: self, label: "mock-provider")
        configuredBaseURL = advertised ?? url
        return url
    }

    public func stop() async {
        await server.stop()
    }

    /// Where the backend reaches the provider; also used for `jku`/`x5u` URLs. Set by `start`,
    /// or by `setBaseURL` when it runs behind the in-process transport.
    public var baseURL: URL? { configuredBaseURL }

    public func setBaseURL(_ url: URL) { configuredBaseURL = url }

    private var base: String { configuredBaseURL?.absoluteString.trimmingSuffix("/") ?? "http://127.0.0.1:9" }

    /// The issuer honest tokens carry (the profile's first issuer, `{{provider.url}}` filled in).
    public var issuer: String { profile.issuers(servedAt: base)[0] }

    /// Every issuer the profile lists, filled in.
    public var issuers: [String] { profile.issuers(servedAt: base) }

    /// Full URL of an endpoint path of the profile.
    public func url(of path: String) -> String { base + path }

    public func addRegistration(_ registration: ClientRegistration) {
        registrations[registration.clientID] = registration
    }

    public func registration(for clientID: String) -> ClientRegistration? { registrations[clientID] }

    public var registeredClientIDs: [String] { registrations.keys.sorted() }

    // MARK: Keys

    /// Whether any key has been generated or loaded yet (a run without sign-ins makes none).
    public var hasKeys: Bool { signingKey != nil }

    /// The JWKS starts with 3 signing keys (P4 signs with the 2nd and 3rd): taken on first use
    /// from `RSAKeyPool` (made on every core).
    private func ensureKeys() {
        guard signingKey == nil else { return }
        let material: [RSAKey]
        if let givenMaterial {
            material = givenMaterial.signing
            spares = givenMaterial.spares
            attackerKey = givenMaterial.attacker
        } else {
            material = Self.generate(3)
        }
        var seen = Set<String>()
        for key in material {
            var kid = random.keyID()
            while !seen.insert(kid).inserted || kid == attackerKeyID { kid = random.keyID() }
            entries.append(.signing(ProviderKey(kid: kid, key: key)))
        }
        signingKey = signingKeys.first
    }

    private func attacker() -> RSAKey {
        ensureKeys()
        if let attackerKey { return attackerKey }
        let key = Self.generate(1)[0]
        attackerKey = key
        return key
    }

    /// Fresh keys from the process's pool (made ahead on every core when the run asked for them).
    private static func generate(_ count: Int) -> [RSAKey] {
        RSAKeyPool.shared.take(count)
    }

    private var signing: ProviderKey {
        ensureKeys()
        return signingKey!
    }

    /// Signing keys in JWKS order.
    private var signingKeys: [ProviderKey] {
        entries.compactMap { if case .signing(let key) = $0 { key } else { nil } }
    }

    /// The JWKS as served now (including any unusable entries added for P6).
    public func jwksJSON() -> String {
        jwksObject().jsonString()
    }

    private func jwksObject() -> JSONNode {
        ensureKeys()
        let keys: [JSONNode] = entries.map { entry in
            switch entry {
            case .signing(let key): .object(key.jwk.jsonObject)
            case .unusable(let object): .object(object)
            }
        }
        return .object(["keys": .array(keys)])
    }

    /// Key ids of the usable signing keys, in JWKS order.
    public func keyIDs() -> [String] {
        ensureKeys()
        return signingKeys.map(\.kid)
    }

    /// The `kid` ID tokens are signed with now.
    public func currentKeyID() -> String { signing.kid }

    /// Adds a new signing key and signs with it from now on. The new `kid` is in every JWKS
    /// served after this call, so a backend only knows it once it re-fetches (P5).
    @discardableResult
    public func rotateSigningKey() -> String {
        ensureKeys()
        let key = spares.isEmpty ? Self.generate(1)[0] : spares.removeFirst()
        let kid = freshKeyID()
        let providerKey = ProviderKey(kid: kid, key: key)
        entries.append(.signing(providerKey))
        signingKey = providerKey
        return kid
    }

    /// P6: an `oct` key and an RSA `use:"enc"` key the backend must skip.
    private func addUnusableKeys() {
        let oct: JSONObject = ["kty": "oct", "kid": .string(freshKeyID()), "k": .string(Base64URL.encode(random.bytes(32)))]
        var enc = attacker().publicJWK(kid: freshKeyID(), alg: "RSA-OAEP", use: "enc").jsonObject
        enc["alg"] = "RSA-OAEP"
        entries.append(.unusable(oct))
        entries.append(.unusable(enc))
    }

    private func freshKeyID() -> String {
        let taken = Set(signingKeys.map(\.kid) + [attackerKeyID])
        var kid = random.keyID()
        while taken.contains(kid) { kid = random.keyID() }
        return kid
    }

    private var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    private func minter(for forgery: TokenForgery = .none) -> TokenMinter {
        let signing = self.signing
        return TokenMinter(
            profile: profile, issuers: issuers, keys: signingKeys, signing: signing,
            attackerKey: forgery.needsAttackerKey ? attacker() : nil, attackerKeyID: attackerKeyID,
            baseURL: base, now: now, random: random)
    }

    // MARK: Side door (the checker plays the user and the client)

    /// Simulates the authorize step for `user` and returns what the provider hands the client.
    /// The `nonce` claim is `rawNonce` itself (`.verbatim`) or its SHA-256 in lowercase hex
    /// (`.sha256`): the flow says which. Forgeries change the token (or, for C14, the nonce
    /// the client will post); P5/P6 rotate the keys first.
    public func signIn(
        clientID: String, rawNonce: String?, user: MockUser, forgery: TokenForgery = .none,
        outcome: AuthorizeOutcome = .approved, nonce: NonceTransform = .sha256
    ) -> ProviderSignIn {
        let state = random.string(length: 16)
        guard outcome == .approved else {
            return ProviderSignIn(
                outcome: outcome, code: nil, idToken: nil, rawNonce: rawNonce, nonceClaim: nil, state: state,
                user: user, userJSON: nil,
                error: outcome == .denied ? "user_cancelled_authorize" : "authentication_failed", forgery: forgery)
        }
        var raw = rawNonce
        if raw == nil, let caseID = forgery.caseID, ["P7", "C12", "C13", "C14"].contains(caseID) {
            raw = random.string(length: 32)
        }
        let nonceClaim = raw.map { nonce == .sha256 ? TokenMinter.sha256Hex($0) : $0 }
        switch forgery.caseID {
        case "P5": rotateSigningKey()
        case "P6":
            addUnusableKeys()
            rotateSigningKey()
        default: break
        }
        let code = issueCode(clientID: clientID, user: user, nonceClaim: nonceClaim, redirectURI: nil)
        let mint = minter(for: forgery)
        let claims = mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: code)
        let token = Self.signed { try mint.idToken(
            claims: claims, forgery: forgery, nonceClaim: nonceClaim, clientID: clientID, user: user,
            notification: {
                try mint.notification(
                    claims: mint.notificationClaims(clientID: clientID, event: NotificationEvent(kind: .emailEnabled, sub: user.sub, email: user.email)),
                    forgery: .none, event: NotificationEvent(kind: .emailEnabled, sub: user.sub, email: user.email), clientID: clientID, idToken: { "" })
            })
        }
        let posted = forgery.caseID == "C14" ? nonceClaim : raw
        return ProviderSignIn(
            outcome: .approved, code: code, idToken: token, rawNonce: posted, nonceClaim: nonceClaim, state: state,
            user: user, userJSON: user.userJSON, error: nil, forgery: forgery)
    }

    /// Another authorization code for the same sign-in (user, client, nonce claim), as a second
    /// authorization would give: C15 replays the same ID token and nonce with it, so the code
    /// exchange cannot be what refuses the replay.
    public func freshCode(for signIn: ProviderSignIn, clientID: String) -> String {
        issueCode(clientID: clientID, user: signIn.user, nonceClaim: signIn.nonceClaim, redirectURI: nil)
    }

    /// A signed server-to-server notification JWT (post it as `{"payload":"<JWT>"}`), honest or
    /// forged: N2, C17 index 1 (an ID token instead), and every header, signature and claim
    /// forgery for which `forgery.canApply(to: .notification)` holds (P5/P6 rotate first).
    public func mintNotification(clientID: String, event: NotificationEvent, forgery: TokenForgery = .none) -> String {
        if forgery.canApply(to: .notification) {
            switch forgery.caseID {
            case "P5": rotateSigningKey()
            case "P6":
                addUnusableKeys()
                rotateSigningKey()
            default: break
            }
        }
        let mint = minter(for: forgery)
        let claims = mint.notificationClaims(clientID: clientID, event: event)
        return Self.signed {
            try mint.notification(claims: claims, forgery: forgery, event: event, clientID: clientID) {
                let user = MockUser(sub: event.sub, email: event.email ?? "user@\(profile.emailDomain)")
                return try mint.honest(mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nil, code: nil))
            }
        }
    }

    /// Signing with in-memory keys the provider generated cannot fail short of OpenSSL breaking.
    private static func signed(_ body: () throws -> String) -> String {
        do { return try body() } catch { fatalError("signing with the provider's own key failed: \(error)") }
    }

    /// X1–X3: how `/auth/token` misbehaves until set back to nil.
    public func setTokenEndpointOverride(_ value: TokenEndpointOverride?) { override = value }

    public func tokenEndpointOverride() -> TokenEndpointOverride? { override }

    /// Every request made to the provider so far, in order.
    public func records() -> [RecordedRequest] { log.records }

    public func records(at endpoint: RecordedRequest.Endpoint) -> [RecordedRequest] {
        log.records.filter { $0.endpoint == endpoint }
    }

    /// The records whose `code`, `refresh_token` or `token` field is one of `secrets` (elided as
    /// in the records), in order of arrival: one sign-in's calls, found through an index.
    public func records(carrying secrets: Set<String>) -> [RecordedRequest] { log.records(carrying: secrets) }

    /// Requests for the attacker's `jku`/`x5u` URLs so far (S8).
    public func attackerFetchCount() -> Int { log.attackerFetches }

    public func resetRecords() { log.removeAll() }

    /// Whether a token the provider issued (refresh or access) has been revoked; nil if unknown.
    public func isRevoked(_ token: String) -> Bool? { tokens[token]?.revoked }

    /// Refresh tokens issued to `sub`, for tests and evidence.
    public func refreshTokens(for sub: String) -> [String] {
        (refreshBySub[sub] ?? []).sorted()
    }

    // MARK: Issuing

    private func issueCode(clientID: String, user: MockUser, nonceClaim: String?, redirectURI: String?) -> String {
        let code = "c" + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        dropExpiredCodes()
        codes[code] = CodeGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, issuedAt: now, redirectURI: redirectURI)
        codeOrder.append((now, code))
        return code
    }

    /// Forgets codes past their lifetime, oldest first (an expired code is refused either way).
    private func dropExpiredCodes() {
        let now = self.now
        while codeOrderStart < codeOrder.count, now - codeOrder[codeOrderStart].issuedAt > Int64(profile.codeLifetime) {
            codes[codeOrder[codeOrderStart].code] = nil
            codeOrderStart += 1
        }
        if codeOrderStart > 1024, codeOrderStart * 2 > codeOrder.count {
            codeOrder.removeFirst(codeOrderStart)
            codeOrderStart = 0
        }
    }

    private func issueToken(kind: String, clientID: String, user: MockUser, nonceClaim: String?, parent: String?) -> String {
        let prefix = kind == "refresh_token" ? "r" : "a"
        let token = prefix + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        tokens[token] = TokenGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, kind: kind, parent: parent)
        if kind == "refresh_token" { refreshBySub[user.sub, default: []].append(token) }
        if let parent { children[parent, default: []].append(token) }
        return token
    }

    /// The ID token `/auth/token` returns, bent by the override for X1/X3.
    private func exchangedIDToken(clientID: String, user: MockUser, nonceClaim: String?, accessToken: String) throws -> String {
        let mint = minter()
        var claims = mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: nil, accessToken: accessToken)
        switch override {
        case .differentSubject: claims["sub"] = .string(MockUser.random(using: random, profile: profile).sub)
        case .wrongIssuer: claims["iss"] = .string(issuer + ".evil.example")
        case .wrongAudience: claims["aud"] = .string(TokenMinter.otherAudience)
        case .missingSubject: claims["sub"] = nil
        case .error, nil: break
        }
        return try mint.honest(claims)
    }

    // MARK: HTTP

    public func handle(_ request: MockHTTPRequest) async -> MockHTTPResponse {
        sequence += 1
        var record = RecordedRequest(
            sequence: sequence, time: clock(), method: request.method, path: request.path, endpoint: .unknown,
            fields: [:], grantType: nil, clientID: nil, clientSecret: nil, status: 0, error: nil, servedKeyIDs: nil)
        let response: MockHTTPResponse
        let endpoints = profile.endpoints
        switch (request.method, request.path) {
        case ("GET", endpoints.jwks):
            ensureKeys()
            record.endpoint = .jwks
            record.servedKeyIDs = entries.compactMap { entry in
                switch entry {
                case .signing(let key): key.kid
                case .unusable(let object): object.string("kid")
                }
            }
            response = .json(200, bytes: jwksObject().jsonBytes())
        case ("GET", endpoints.discovery):
            record.endpoint = .openIDConfiguration
            response = configuration()
        case ("GET", endpoints.authorization), ("POST", endpoints.authorization):
            record.endpoint = .authorize
            let fields = request.method == "GET" ? request.queryItems : request.formFields
            record.fields = RecordedRequest.elidedFields(fields)
            record.clientID = fields.first { $0.0 == "client_id" }?.1
            response = authorize(fields)
        case ("POST", endpoints.token):
            record.endpoint = .token
            response = token(request, record: &record)
        case ("POST", endpoints.revocation ?? "\u{0}"):
            record.endpoint = .revoke
            response = revoke(request, record: &record)
        case ("GET", endpoints.userinfo ?? "\u{0}"), ("POST", endpoints.userinfo ?? "\u{0}"):
            record.endpoint = .userinfo
            response = userinfo(request)
        case ("GET", Self.attackerJWKSPath):
            record.endpoint = .attackerJWKS
            response = .json(200, bytes: JWKS(keys: [attacker().publicJWK(kid: attackerKeyID)]).jsonBytes())
        case ("GET", Self.attackerX5UPath):
            record.endpoint = .attackerX5U
            response = MockHTTPResponse(
                status: 200, headers: [HeaderField(name: "Content-Type", value: "application/x-pem-file")],
                body: Array(attacker().publicKeyPEM.utf8))
        default:
            record.fields = RecordedRequest.elidedFields(request.queryItems)
            response = .error(404, "not_found")
        }
        record.status = response.status
        if response.status >= 400, let error = response.jsonBody.flatMap({ JSONPath(parsing: "$.error")?.evaluate(in: $0) }),
            case .string(let code) = error
        {
            record.error = code
            if case .string(let description)? = response.jsonBody.flatMap({ JSONPath(parsing: "$.error_description")?.evaluate(in: $0) }) {
                record.errorDescription = description
            }
        }
        // A long-running `flowspec mock` keeps the newest records only (a check run makes a few
        // thousand).
        log.append(record)
        return response
    }

    /// The discovery document (OpenID Connect Discovery 1.0 §3), pointing at this mock.
    private func configuration() -> MockHTTPResponse {
        let endpoints = profile.endpoints
        var object: JSONObject = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(url(of: endpoints.authorization)),
            "token_endpoint": .string(url(of: endpoints.token)),
        ]
        if let revocation = endpoints.revocation { object.append("revocation_endpoint", .string(url(of: revocation))) }
        if let userinfo = endpoints.userinfo { object.append("userinfo_endpoint", .string(url(of: userinfo))) }
        object.append("jwks_uri", .string(url(of: endpoints.jwks)))
        object.append("response_types_supported", ["code", "id_token", "code id_token"])
        object.append("response_modes_supported", ["query", "fragment", "form_post"])
        object.append("subject_types_supported", [profile.subject == .apple ? "pairwise" : "public"])
        object.append("id_token_signing_alg_values_supported", .array(profile.signingAlgorithms.map { .string($0) }))
        object.append("scopes_supported", ["openid", "email", "profile"])
        // Apple's ES256 client_secret travels as client_secret_post, as Apple's document says.
        let methods = profile.clientAuthentication.map { $0 == .appleClientSecret ? "client_secret_post" : $0.rawValue }
        object.append("token_endpoint_auth_methods_supported", .array(methods.map { .string($0) }))
        if profile.clientAuthentication.contains(.privateKeyJWT) {
            object.append("token_endpoint_auth_signing_alg_values_supported", ["RS256", "ES256"])
        }
        object.append("grant_types_supported", ["authorization_code", "refresh_token"])
        let claims = ["aud", "exp", "iat", "iss", "nonce", "sub"] + profile.claims.map(\.name)
        object.append("claims_supported", .array(Array(Set(claims)).sorted().map { .string($0) }))
        return .json(200, bytes: object.jsonBytes())
    }

    /// Client authentication shared by token and revoke: `nil` when the client is good,
    /// otherwise the provider's `invalid_client` answer.
    private func authenticateClient(_ request: MockHTTPRequest, fields: [(String, String)], record: inout RecordedRequest) -> MockHTTPResponse? {
        var audiences: Set<String> = [issuer, url(of: profile.endpoints.token)]
        if let revocation = profile.endpoints.revocation { audiences.insert(url(of: revocation)) }
        let authenticator = ClientAuthenticator(
            profile: profile, registrations: registrations, audiences: audiences, appleAudience: issuer, now: now)
        let outcome = authenticator.authenticate(fields: fields, authorization: request.header("Authorization"), seenJTIs: seenAssertionIDs)
        record.clientID = outcome.clientID
        record.clientSecret = outcome.report
        if outcome.report.method == ClientAuthMethod.privateKeyJWT.rawValue, outcome.report.isValid,
            let claims = outcome.report.claims.flatMap({ try? StrictJSON.parseObject(Array($0.utf8)) }), let jti = claims.string("jti")
        {
            seenAssertionIDs.insert(jti)
        }
        guard outcome.clientID?.isEmpty == false else { return .error(400, "invalid_request") }
        // Apple (and RFC 6749 §5.2 without an Authorization header) answer 400 invalid_client.
        return outcome.report.isValid ? nil : .error(400, "invalid_client")
    }

    /// The userinfo endpoint: the signed-in user's claims for a live access token.
    private func userinfo(_ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let token = request.bearerToken, let grant = tokens[token], grant.kind == "access_token", !grant.revoked else {
            return MockHTTPResponse(
                status: 401, headers: [HeaderField(name: "WWW-Authenticate", value: "Bearer error=\"invalid_token\"")], body: [])
        }
        let mint = minter()
        var claims = JSONObject()
        claims.append("sub", .string(grant.user.sub))
        for member in mint.idTokenClaims(clientID: grant.clientID, user: grant.user, nonceClaim: nil, code: nil).members
        where ["email", "email_verified", "name", "given_name", "family_name", "preferred_username", "is_private_email"].contains(member.name) {
            claims.append(member.name, member.value)
        }
        return .json(200, bytes: claims.jsonBytes())
    }

    private func token(_ request: MockHTTPRequest, record: inout RecordedRequest) -> MockHTTPResponse {
        let fields = request.formFields
        record.fields = RecordedRequest.elidedFields(fields)
        let grantType = fields.first { $0.0 == "grant_type" }?.1
        record.grantType = grantType
        if let failure = authenticateClient(request, fields: fields, record: &record) { return failure }
        guard let grantType else { return .error(400, "invalid_request") }
        guard grantType == "authorization_code" || grantType == "refresh_token" else { return .error(400, "unsupported_grant_type") }
        if case .error(let code) = override { return .error(400, code) }
        let clientID = record.clientID ?? ""
        do {
            if grantType == "authorization_code" {
                guard let code = fields.first(where: { $0.0 == "code" })?.1, !code.isEmpty else { return .error(400, "invalid_request") }
                guard var grant = codes[code], grant.clientID == clientID else {
                    return .error(400, "invalid_grant", description: "The code is invalid.")
                }
                guard !grant.used || !profile.codeSingleUse else { return .error(400, "invalid_grant", description: "The code has already been used.") }
                guard now - grant.issuedAt <= Int64(profile.codeLifetime) else {
                    return .error(400, "invalid_grant", description: "The code has expired or has been revoked.")
                }
                if let expected = grant.redirectURI ?? registrations[clientID]?.redirectURI,
                    let given = fields.first(where: { $0.0 == "redirect_uri" })?.1, given != expected
                {
                    return .error(400, "invalid_grant", description: "The redirect_uri does not match.")
                }
                if grant.redirectURI != nil, fields.first(where: { $0.0 == "redirect_uri" }) == nil {
                    return .error(400, "invalid_request", description: "redirect_uri is required.")
                }
                grant.used = true
                codes[code] = grant
                let refresh = issueToken(kind: "refresh_token", clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, parent: nil)
                let access = issueToken(kind: "access_token", clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, parent: refresh)
                let idToken = try exchangedIDToken(clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, accessToken: access)
                let body: JSONObject = [
                    "access_token": .string(access), "token_type": "Bearer", "expires_in": 3600,
                    "refresh_token": .string(refresh), "id_token": .string(idToken),
                ]
                return .json(200, bytes: body.jsonBytes())
            } else {
                guard let refresh = fields.first(where: { $0.0 == "refresh_token" })?.1, !refresh.isEmpty else {
                    return .error(400, "invalid_request")
                }
                guard let grant = tokens[refresh], grant.kind == "refresh_token", grant.clientID == clientID, !grant.revoked else {
                    return .error(400, "invalid_grant", description: "The refresh token is invalid or has been revoked.")
                }
                let access = issueToken(kind: "access_token", clientID: clientID, user: grant.user, nonceClaim: nil, parent: refresh)
                let idToken = try exchangedIDToken(clientID: clientID, user: grant.user, nonceClaim: nil, accessToken: access)
                let body: JSONObject = [
                    "access_token": .string(access), "token_type": "Bearer", "expires_in": 3600, "id_token": .string(idToken),
                ]
                return .json(200, bytes: body.jsonBytes())
            }
        } catch {
            return .error(500, "server_error")
        }
    }

    private func revoke(_ request: MockHTTPRequest, record: inout RecordedRequest) -> MockHTTPResponse {
        let fields = request.formFields
        record.fields = RecordedRequest.elidedFields(fields)
        if let failure = authenticateClient(request, fields: fields, record: &record) { return failure }
        guard let token = fields.first(where: { $0.0 == "token" })?.1, !token.isEmpty else { return .error(400, "invalid_request") }
        if var grant = tokens[token], grant.clientID == record.clientID {
            grant.revoked = true
            tokens[token] = grant
            for child in children[token] ?? [] {
                tokens[child]?.revoked = true
            }
            record.fields["recognized"] = grant.kind
        }
        return .empty(200)
    }

    private func authorize(_ fields: [(String, String)]) -> MockHTTPResponse {
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        guard let clientID = field("client_id"), registrations[clientID] != nil else { return .error(400, "invalid_client") }
        let redirectURI = field("redirect_uri") ?? registrations[clientID]?.redirectURI
        guard let redirectURI else { return .error(400, "invalid_request", description: "redirect_uri is required.") }
        if let registered = registrations[clientID]?.redirectURI, registered != redirectURI {
            return .error(400, "invalid_request", description: "Invalid redirect_uri.")
        }
        let state = field("state")
        let outcome = field("flowspec_outcome").flatMap(AuthorizeOutcome.init(rawValue:)) ?? .approved
        let formPost = field("response_mode") == "form_post"
        var result: [(String, String)] = []
        switch outcome {
        case .authenticationFailed:
            return MockHTTPResponse(
                status: 200, headers: [HeaderField(name: "Content-Type", value: "text/html; charset=utf-8")],
                body: Array("<!doctype html><title>\(Self.html(profile.name))</title><p>The account or password was incorrect.</p>".utf8))
        case .denied:
            result.append(("error", "user_cancelled_authorize"))
        case .approved:
            let nonce = field("nonce")
            let code = issueCode(clientID: clientID, user: defaultUser, nonceClaim: nonce, redirectURI: redirectURI)
            ensureKeys()
            result.append(("code", code))
            if field("response_type")?.split(separator: " ").contains("id_token") == true {
                let mint = minter()
                if let token = try? mint.honest(mint.idTokenClaims(clientID: clientID, user: defaultUser, nonceClaim: nonce, code: code)) {
                    result.append(("id_token", token))
                }
            }
            if field("scope")?.isEmpty == false { result.append(("user", defaultUser.userJSON)) }
        }
        if let state { result.append(("state", state)) }
        if formPost {
            let inputs = result.map { "<input type=\"hidden\" name=\"\(Self.html($0.0))\" value=\"\(Self.html($0.1))\">" }.joined()
            let page = "<!doctype html><title>\(Self.html(profile.name))</title><body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"\(Self.html(redirectURI))\">\(inputs)<noscript><button>Continue</button></noscript></form></body>"
            return MockHTTPResponse(
                status: 200, headers: [HeaderField(name: "Content-Type", value: "text/html; charset=utf-8")], body: Array(page.utf8))
        }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return MockHTTPResponse(status: 302, headers: [HeaderField(name: "Location", value: redirectURI + separator + FormEncoding.encode(result))])
    }

    private static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension String {
    /// This text without every trailing repetition of `suffix` (`"http://h//"` → `"http://h"`).
    public func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while !suffix.isEmpty, text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
