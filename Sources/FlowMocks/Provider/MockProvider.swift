import FlowModel
import Foundation
import JOSE

/// The mock identity provider: flowspec plays Apple. Serves a JWKS of per-run RS256 keys,
/// answers `/auth/token` and `/auth/revoke` with Apple's rules and error bodies, simulates the
/// authorize step, mints honest and forged ID tokens and notifications, and records every
/// request made to it (secrets elided) so checks can assert on what the backend did — and did
/// not — do.
///
/// The checker drives it in-process through the "side door" (`signIn`, `mintNotification`…);
/// the backend under test reaches it over HTTP. Not a general OpenID provider: only Apple's
/// profile, and only what token-cases.md needs.
public actor MockProvider: MockHTTPHandler {
    public static let jwksPath = "/auth/keys"
    public static let tokenPath = "/auth/token"
    public static let revokePath = "/auth/revoke"
    public static let authorizePath = "/auth/authorize"
    public static let configurationPath = "/.well-known/openid-configuration"
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

    private var registrations: [String: ClientRegistration] = [:]
    private var clientKeys: [String: ECKey] = [:]
    private let clock: @Sendable () -> Date
    private let random: any RandomSource
    private let material: ProviderKeyMaterial
    private var entries: [JWKSEntry] = []
    private var signing: ProviderKey
    private var sparesUsed = 0
    private let attackerKeyID: String
    private var codes: [String: CodeGrant] = [:]
    private var tokens: [String: TokenGrant] = [:]
    private var override: TokenEndpointOverride?
    private var recorded: [RecordedRequest] = []
    private var sequence = 0
    private let server = MockHTTPServer()
    private var configuredBaseURL: URL?
    /// The user of manual sign-ins through `/auth/authorize`.
    public let defaultUser: MockUser

    /// - Parameters:
    ///   - registrations: clients whose `client_secret` the provider can verify.
    ///   - keys: RSA key material; generated when nil (3 signing keys, 2 spares).
    public init(
        registrations: [ClientRegistration],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        keys: ProviderKeyMaterial? = nil
    ) {
        let material: ProviderKeyMaterial
        if let keys {
            material = keys
        } else {
            do { material = try ProviderKeyMaterial.generate() } catch { fatalError("OpenSSL could not generate RSA keys: \(error)") }
        }
        self.material = material
        self.clock = clock
        self.random = random
        var entries: [JWKSEntry] = []
        var seen = Set<String>()
        for key in material.signing {
            var kid = random.keyID()
            while !seen.insert(kid).inserted { kid = random.keyID() }
            entries.append(.signing(ProviderKey(kid: kid, key: key)))
        }
        self.entries = entries
        guard case .signing(let first) = entries[0] else { preconditionFailure() }
        self.signing = first
        self.attackerKeyID = random.keyID()
        self.defaultUser = MockUser.random(using: random)
        for registration in registrations {
            self.registrations[registration.clientID] = registration
            self.clientKeys[registration.clientID] = try? ECKey(pem: registration.publicKeyPEM)
        }
    }

    // MARK: Lifecycle

    /// Starts serving on `host:port` (0 = any free port) and returns the base URL.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> URL {
        let url = try await server.start(host: host, port: port, handler: self, label: "mock-provider")
        configuredBaseURL = url
        return url
    }

    public func stop() async {
        await server.stop()
    }

    /// Where the provider is served; also used for `jku`/`x5u` URLs. Set by `start`, or by
    /// `setBaseURL` when it runs behind the in-process transport.
    public var baseURL: URL? { configuredBaseURL }

    public func setBaseURL(_ url: URL) { configuredBaseURL = url }

    public func addRegistration(_ registration: ClientRegistration) {
        registrations[registration.clientID] = registration
        clientKeys[registration.clientID] = try? ECKey(pem: registration.publicKeyPEM)
    }

    public func registration(for clientID: String) -> ClientRegistration? { registrations[clientID] }

    // MARK: Keys

    /// Signing keys in JWKS order.
    private var signingKeys: [ProviderKey] {
        entries.compactMap { if case .signing(let key) = $0 { key } else { nil } }
    }

    /// The JWKS as served now (including any unusable entries added for P6).
    public func jwksJSON() -> String {
        jwksObject().jsonString()
    }

    private func jwksObject() -> JSONNode {
        let keys: [JSONNode] = entries.map { entry in
            switch entry {
            case .signing(let key): .object(key.jwk.jsonObject)
            case .unusable(let object): .object(object)
            }
        }
        return .object(["keys": .array(keys)])
    }

    /// Key ids of the usable signing keys, in JWKS order.
    public func keyIDs() -> [String] { signingKeys.map(\.kid) }

    /// The `kid` ID tokens are signed with now.
    public func currentKeyID() -> String { signing.kid }

    /// Adds a new signing key and signs with it from now on. The new `kid` is in every JWKS
    /// served after this call, so a backend only knows it once it re-fetches (P5).
    @discardableResult
    public func rotateSigningKey() -> String {
        let key: RSAKey
        if sparesUsed < material.spares.count {
            key = material.spares[sparesUsed]
            sparesUsed += 1
        } else {
            do { key = try RSAKey.generate() } catch { fatalError("OpenSSL could not generate an RSA key: \(error)") }
        }
        let kid = freshKeyID()
        let providerKey = ProviderKey(kid: kid, key: key)
        entries.append(.signing(providerKey))
        signing = providerKey
        return kid
    }

    /// P6: an `oct` key and an RSA `use:"enc"` key the backend must skip.
    private func addUnusableKeys() {
        let oct: JSONObject = ["kty": "oct", "kid": .string(freshKeyID()), "k": .string(Base64URL.encode(random.bytes(32)))]
        var enc = material.attacker.publicJWK(kid: freshKeyID(), alg: "RSA-OAEP", use: "enc").jsonObject
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

    private func minter() -> TokenMinter {
        TokenMinter(
            keys: signingKeys, signing: signing, attacker: material.attacker, attackerKeyID: attackerKeyID,
            baseURL: configuredBaseURL?.absoluteString.trimmingSuffix("/") ?? "http://127.0.0.1:9",
            now: now, random: random)
    }

    // MARK: Side door (the checker plays the user and the client)

    /// Simulates the authorize step for `user` and returns what Apple hands the client.
    /// The `nonce` claim is the SHA-256 (lowercase hex) of `rawNonce`. Forgeries change the
    /// token (or, for C14, the nonce the client will post); P5/P6 rotate the keys first.
    public func signIn(
        clientID: String, rawNonce: String?, user: MockUser, forgery: TokenForgery = .none,
        outcome: AuthorizeOutcome = .approved
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
        let nonceClaim = raw.map(TokenMinter.sha256Hex)
        switch forgery.caseID {
        case "P5": rotateSigningKey()
        case "P6":
            addUnusableKeys()
            rotateSigningKey()
        default: break
        }
        let code = issueCode(clientID: clientID, user: user, nonceClaim: nonceClaim, redirectURI: nil)
        let mint = minter()
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
        let mint = minter()
        let claims = mint.notificationClaims(clientID: clientID, event: event)
        return Self.signed {
            try mint.notification(claims: claims, forgery: forgery, event: event, clientID: clientID) {
                let user = MockUser(sub: event.sub, email: event.email ?? "user@privaterelay.appleid.com")
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
    public func records() -> [RecordedRequest] { recorded }

    public func records(at endpoint: RecordedRequest.Endpoint) -> [RecordedRequest] {
        recorded.filter { $0.endpoint == endpoint }
    }

    public func resetRecords() { recorded.removeAll() }

    /// Whether a token the provider issued (refresh or access) has been revoked; nil if unknown.
    public func isRevoked(_ token: String) -> Bool? { tokens[token]?.revoked }

    /// Refresh tokens issued to `sub`, for tests and evidence.
    public func refreshTokens(for sub: String) -> [String] {
        tokens.filter { $0.value.kind == "refresh_token" && $0.value.user.sub == sub }.map(\.key).sorted()
    }

    // MARK: Issuing

    private func issueCode(clientID: String, user: MockUser, nonceClaim: String?, redirectURI: String?) -> String {
        let code = "c" + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        codes[code] = CodeGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, issuedAt: now, redirectURI: redirectURI)
        return code
    }

    private func issueToken(kind: String, clientID: String, user: MockUser, nonceClaim: String?, parent: String?) -> String {
        let prefix = kind == "refresh_token" ? "r" : "a"
        let token = prefix + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        tokens[token] = TokenGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, kind: kind, parent: parent)
        return token
    }

    /// The ID token `/auth/token` returns, bent by the override for X1/X3.
    private func exchangedIDToken(clientID: String, user: MockUser, nonceClaim: String?, accessToken: String) throws -> String {
        let mint = minter()
        var claims = mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: nil)
        claims.append("at_hash", .string(TokenMinter.halfHash(accessToken)))
        switch override {
        case .differentSubject: claims["sub"] = .string(MockUser.random(using: random).sub)
        case .wrongIssuer: claims["iss"] = .string("https://appleid.apple.example")
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
        switch (request.method, request.path) {
        case ("GET", Self.jwksPath):
            record.endpoint = .jwks
            record.servedKeyIDs = entries.compactMap { entry in
                switch entry {
                case .signing(let key): key.kid
                case .unusable(let object): object.string("kid")
                }
            }
            response = .json(200, bytes: jwksObject().jsonBytes())
        case ("GET", Self.configurationPath):
            record.endpoint = .openIDConfiguration
            response = configuration()
        case ("GET", Self.authorizePath), ("POST", Self.authorizePath):
            record.endpoint = .authorize
            let fields = request.method == "GET" ? request.queryItems : request.formFields
            record.fields = RecordedRequest.elidedFields(fields)
            record.clientID = fields.first { $0.0 == "client_id" }?.1
            response = authorize(fields)
        case ("POST", Self.tokenPath):
            record.endpoint = .token
            response = token(request, record: &record)
        case ("POST", Self.revokePath):
            record.endpoint = .revoke
            response = revoke(request, record: &record)
        case ("GET", Self.attackerJWKSPath):
            record.endpoint = .attackerJWKS
            response = .json(200, bytes: JWKS(keys: [material.attacker.publicJWK(kid: attackerKeyID)]).jsonBytes())
        case ("GET", Self.attackerX5UPath):
            record.endpoint = .attackerX5U
            response = MockHTTPResponse(
                status: 200, headers: [HeaderField(name: "Content-Type", value: "application/x-pem-file")],
                body: Array(material.attacker.publicKeyPEM.utf8))
        default:
            record.fields = RecordedRequest.elidedFields(request.queryItems)
            response = .error(404, "not_found")
        }
        record.status = response.status
        if response.status >= 400, let error = response.jsonBody.flatMap({ JSONPath(parsing: "$.error")?.evaluate(in: $0) }),
            case .string(let code) = error
        {
            record.error = code
        }
        recorded.append(record)
        return response
    }

    private func configuration() -> MockHTTPResponse {
        let base = configuredBaseURL?.absoluteString.trimmingSuffix("/") ?? ""
        let object: JSONObject = [
            "issuer": .string(FlowMocks.appleIssuer),
            "authorization_endpoint": .string(base + Self.authorizePath),
            "token_endpoint": .string(base + Self.tokenPath),
            "revocation_endpoint": .string(base + Self.revokePath),
            "jwks_uri": .string(base + Self.jwksPath),
            "response_types_supported": ["code", "code id_token"],
            "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "name"],
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "claims_supported": ["aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce", "nonce_supported", "real_user_status", "sub", "transfer_sub"],
        ]
        return .json(200, bytes: object.jsonBytes())
    }

    /// Client authentication shared by token and revoke: `nil` when the client is good,
    /// otherwise Apple's error response.
    private func authenticateClient(_ fields: [(String, String)], record: inout RecordedRequest) -> MockHTTPResponse? {
        let clientID = fields.first { $0.0 == "client_id" }?.1
        let secret = fields.first { $0.0 == "client_secret" }?.1
        record.clientID = clientID
        guard let clientID, !clientID.isEmpty else { return .error(400, "invalid_request") }
        let report = ClientSecretVerifier.verify(
            secret, formClientID: clientID, registration: registrations[clientID], publicKey: clientKeys[clientID], now: now)
        record.clientSecret = report
        return report.isValid ? nil : .error(400, "invalid_client")
    }

    private func token(_ request: MockHTTPRequest, record: inout RecordedRequest) -> MockHTTPResponse {
        let fields = request.formFields
        record.fields = RecordedRequest.elidedFields(fields)
        let grantType = fields.first { $0.0 == "grant_type" }?.1
        record.grantType = grantType
        if let failure = authenticateClient(fields, record: &record) { return failure }
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
                guard !grant.used else { return .error(400, "invalid_grant", description: "The code has already been used.") }
                guard now - grant.issuedAt <= FlowMocks.codeLifetime else {
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
        if let failure = authenticateClient(fields, record: &record) { return failure }
        guard let token = fields.first(where: { $0.0 == "token" })?.1, !token.isEmpty else { return .error(400, "invalid_request") }
        if var grant = tokens[token], grant.clientID == record.clientID {
            grant.revoked = true
            tokens[token] = grant
            for (other, child) in tokens where child.parent == token {
                var revoked = child
                revoked.revoked = true
                tokens[other] = revoked
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
                body: Array("<!doctype html><title>Sign in with Apple</title><p>Your Apple ID or password was incorrect.</p>".utf8))
        case .denied:
            result.append(("error", "user_cancelled_authorize"))
        case .approved:
            let nonce = field("nonce")
            let code = issueCode(clientID: clientID, user: defaultUser, nonceClaim: nonce, redirectURI: redirectURI)
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
            let page = "<!doctype html><title>Sign in with Apple</title><body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"\(Self.html(redirectURI))\">\(inputs)<noscript><button>Continue</button></noscript></form></body>"
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
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
