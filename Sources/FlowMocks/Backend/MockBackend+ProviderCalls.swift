import FlowModel
import FlowParser
import Foundation
import JOSE

/// Calls to the provider (code exchange, revocation) and ID-token validation against its JWKS, with the defects that weaken it.
extension MockBackend {
    // MARK: Provider calls

    /// Posts a form to the provider's `path`, authenticated as `clientID` by the link's method.
    func postToProvider(_ link: BackendProviderLink, _ path: String, clientID: String, _ fields: [(String, String)]) async throws -> MockHTTPResponse {
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

    static func errorCode(_ response: MockHTTPResponse) -> String {
        if let body = response.jsonBody, case .string(let code)? = JSONPath(parsing: "$.error")?.evaluate(in: body) { return code }
        return "HTTP \(response.status)"
    }

    func exchangeRaw(code: String, clientID: String, flow: Flow, link: BackendProviderLink) async throws -> (idToken: String, refresh: String?, access: String?) {
        var fields = [("code", code), ("grant_type", "authorization_code")]
        if let redirect = Self.variables(of: flow)["redirect_uri"] ?? link.redirectURI { fields.append(("redirect_uri", redirect)) }
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

    func exchange(code: String, clientID: String, flow: Flow, expectedSub: String, link: BackendProviderLink) async throws -> (refresh: String?, access: String?) {
        let result = try await exchangeRaw(code: code, clientID: clientID, flow: flow, link: link)
        let verified = try await verify(result.idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: expectedSub, link: link)
        return (result.refresh, result.access)
    }

    func revokeAtProvider(account key: String) async {
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
    func verifyDefectively(_ token: String, link: BackendProviderLink, skipSignature: Bool) async throws -> VerifiedToken {
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

    func selectKey(_ kidNode: JSONNode?, link: BackendProviderLink) async throws -> RSAKey {
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

    func fetchJWKS(_ link: BackendProviderLink) async throws {
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
    func fetchRemoteKey(_ address: String, kid: String?) async -> RSAKey? {
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
}
