import FlowModel
import FlowParser
import Foundation
import JOSE

/// The provider's HTTP endpoints: discovery, JWKS, authorize, token, userinfo and revocation, with client authentication.
extension MockProvider {
    // MARK: HTTP

    /// Answers on the actor, except the ID token of a code exchange or refresh: signed after,
    /// off the actor (`UnsignedIDToken`).
    public nonisolated func handle(_ request: MockHTTPRequest) async -> MockHTTPResponse {
        let (response, issued) = await respond(to: request)
        return issued?.response() ?? response
    }

    /// `handle` on the actor: the response, or the tokens of a successful grant whose ID token
    /// is still to be signed (recorded as the 200 it will be).
    func respond(to request: MockHTTPRequest) -> (MockHTTPResponse, IssuedTokens?) {
        sequence += 1
        var record = RecordedRequest(
            sequence: sequence, time: clock(), method: request.method, path: request.path, endpoint: .unknown,
            fields: [:], grantType: nil, clientID: nil, clientSecret: nil, status: 0, error: nil, servedKeyIDs: nil)
        let response: MockHTTPResponse
        var issued: IssuedTokens?
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
            switch token(request, record: &record) {
            case .refused(let refusal): response = refusal
            case .issued(let tokens):
                issued = tokens
                response = .json(200, bytes: [])
            }
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
        return (response, issued)
    }

    /// The discovery document (OpenID Connect Discovery 1.0 §3), pointing at this mock.
    func configuration() -> MockHTTPResponse {
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
    func authenticateClient(_ request: MockHTTPRequest, fields: [(String, String)], record: inout RecordedRequest) -> MockHTTPResponse? {
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
    func userinfo(_ request: MockHTTPRequest) -> MockHTTPResponse {
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

    /// What `/auth/token` answers: a refusal, or the tokens of a grant.
    enum TokenReply {
        case refused(MockHTTPResponse)
        case issued(IssuedTokens)
    }

    func token(_ request: MockHTTPRequest, record: inout RecordedRequest) -> TokenReply {
        let fields = request.formFields
        record.fields = RecordedRequest.elidedFields(fields)
        let grantType = fields.first { $0.0 == "grant_type" }?.1
        record.grantType = grantType
        if let failure = authenticateClient(request, fields: fields, record: &record) { return .refused(failure) }
        guard let grantType else { return .refused(.error(400, "invalid_request")) }
        guard grantType == "authorization_code" || grantType == "refresh_token" else { return .refused(.error(400, "unsupported_grant_type")) }
        if case .error(let code) = override { return .refused(.error(400, code)) }
        let clientID = record.clientID ?? ""
        if grantType == "authorization_code" {
            guard let code = fields.first(where: { $0.0 == "code" })?.1, !code.isEmpty else { return .refused(.error(400, "invalid_request")) }
            guard var grant = codes[code], grant.clientID == clientID else {
                return .refused(.error(400, "invalid_grant", description: "The code is invalid."))
            }
            guard !grant.used || !profile.codeSingleUse else { return .refused(.error(400, "invalid_grant", description: "The code has already been used.")) }
            guard now - grant.issuedAt <= Int64(profile.codeLifetime) else {
                return .refused(.error(400, "invalid_grant", description: "The code has expired or has been revoked."))
            }
            if let expected = grant.redirectURI ?? registrations[clientID]?.redirectURI,
                let given = fields.first(where: { $0.0 == "redirect_uri" })?.1, given != expected
            {
                return .refused(.error(400, "invalid_grant", description: "The redirect_uri does not match."))
            }
            if grant.redirectURI != nil, fields.first(where: { $0.0 == "redirect_uri" }) == nil {
                return .refused(.error(400, "invalid_request", description: "redirect_uri is required."))
            }
            grant.used = true
            codes[code] = grant
            let refresh = issueToken(kind: "refresh_token", clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, parent: nil)
            exchanged[code, default: []].append(refresh)
            let access = issueToken(kind: "access_token", clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, parent: refresh)
            let idToken = exchangedIDToken(clientID: clientID, user: grant.user, nonceClaim: grant.nonceClaim, accessToken: access)
            return .issued(IssuedTokens(access: access, refresh: refresh, idToken: idToken))
        } else {
            guard let refresh = fields.first(where: { $0.0 == "refresh_token" })?.1, !refresh.isEmpty else {
                return .refused(.error(400, "invalid_request"))
            }
            guard let grant = tokens[refresh], grant.kind == "refresh_token", grant.clientID == clientID, !grant.revoked else {
                return .refused(.error(400, "invalid_grant", description: "The refresh token is invalid or has been revoked."))
            }
            let access = issueToken(kind: "access_token", clientID: clientID, user: grant.user, nonceClaim: nil, parent: refresh)
            let idToken = exchangedIDToken(clientID: clientID, user: grant.user, nonceClaim: nil, accessToken: access)
            return .issued(IssuedTokens(access: access, refresh: nil, idToken: idToken))
        }
    }

    func revoke(_ request: MockHTTPRequest, record: inout RecordedRequest) -> MockHTTPResponse {
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

    func authorize(_ fields: [(String, String)]) -> MockHTTPResponse {
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

    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// The tokens of a successful grant at `/auth/token`, settled on the provider's actor; the ID
/// token is signed when the response is made, off the actor.
struct IssuedTokens: Sendable {
    var access: String
    /// Only an authorization-code grant issues one.
    var refresh: String?
    var idToken: UnsignedIDToken

    func response() -> MockHTTPResponse {
        var body: JSONObject = ["access_token": .string(access), "token_type": "Bearer", "expires_in": 3600]
        if let refresh { body.append("refresh_token", .string(refresh)) }
        body.append("id_token", .string(idToken.signed()))
        return .json(200, bytes: body.jsonBytes())
    }
}
