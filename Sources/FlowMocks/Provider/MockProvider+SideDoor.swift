import FlowModel
import FlowParser
import Foundation
import JOSE

/// The side door the checker uses to play the user and the client (sign-in, codes, notifications, records), and what the provider issues.
extension MockProvider {
    // MARK: Side door (the checker plays the user and the client)

    /// Simulates the authorize step for `user` and returns what the provider hands the client.
    /// The `nonce` claim is `rawNonce` itself (`.verbatim`) or its SHA-256 in lowercase hex
    /// (`.sha256`): the flow says which. Forgeries change the token (or, for C14, the nonce
    /// the client will post); P5/P6 rotate the keys first.
    ///
    /// The provider's state (codes, rotations) changes on its actor; the token is signed after,
    /// off the actor (`UnsignedIDToken`), so that other requests to this provider do not wait
    /// for an RSA signature.
    public nonisolated func signIn(
        clientID: String, rawNonce: String?, user: MockUser, forgery: TokenForgery = .none,
        outcome: AuthorizeOutcome = .approved, nonce: NonceTransform = .sha256
    ) async -> ProviderSignIn {
        var (signIn, unsigned) = await beginSignIn(clientID: clientID, rawNonce: rawNonce, user: user, forgery: forgery, outcome: outcome, nonce: nonce)
        signIn.idToken = unsigned?.signed()
        return signIn
    }

    /// `signIn` on the actor: everything but the signature.
    func beginSignIn(
        clientID: String, rawNonce: String?, user: MockUser, forgery: TokenForgery,
        outcome: AuthorizeOutcome, nonce: NonceTransform
    ) -> (ProviderSignIn, UnsignedIDToken?) {
        let state = random.string(length: 16)
        guard outcome == .approved else {
            return (ProviderSignIn(
                outcome: outcome, code: nil, idToken: nil, rawNonce: rawNonce, nonceClaim: nil, state: state,
                user: user, userJSON: nil,
                error: outcome == .denied ? "user_cancelled_authorize" : "authentication_failed", forgery: forgery), nil)
        }
        var raw = rawNonce
        if raw == nil, let caseID = forgery.caseID, ["P7", "C12", "C13", "C14"].contains(caseID) {
            raw = random.string(length: 32)
        }
        let nonceClaim = raw.map { nonce == .sha256 ? TokenMinter.sha256Hex($0) : $0 }
        rotateKeys(for: forgery)
        let code = issueCode(clientID: clientID, user: user, nonceClaim: nonceClaim, redirectURI: nil)
        let mint = minter(for: forgery)
        let claims = mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: code)
        let posted = forgery.caseID == "C14" ? nonceClaim : raw
        return (ProviderSignIn(
            outcome: .approved, code: code, idToken: nil, rawNonce: posted, nonceClaim: nonceClaim, state: state,
            user: user, userJSON: user.userJSON, error: nil, forgery: forgery),
            UnsignedIDToken(mint: mint, claims: claims, forgery: forgery, nonceClaim: nonceClaim, clientID: clientID, user: user))
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
    /// Signed off the actor, as `signIn`.
    public nonisolated func mintNotification(clientID: String, event: NotificationEvent, forgery: TokenForgery = .none) async -> String {
        let (mint, claims) = await beginNotification(clientID: clientID, event: event, forgery: forgery)
        let profile = self.profile
        return Self.signed {
            try mint.notification(claims: claims, forgery: forgery, event: event, clientID: clientID) {
                let user = MockUser(sub: event.sub, email: event.email ?? "user@\(profile.emailDomain)")
                return try mint.honest(mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nil, code: nil))
            }
        }
    }

    /// `mintNotification` on the actor: rotation (P5/P6) and the claims.
    func beginNotification(clientID: String, event: NotificationEvent, forgery: TokenForgery) -> (TokenMinter, JSONObject) {
        if forgery.canApply(to: .notification) {
            rotateKeys(for: forgery)
        }
        let mint = minter(for: forgery)
        return (mint, mint.notificationClaims(clientID: clientID, event: event))
    }

    /// Signing with in-memory keys the provider generated cannot fail short of OpenSSL breaking.
    static func signed(_ body: () throws -> String) -> String {
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

    /// Forgets the sign-ins these codes began, once the checker has judged them: the codes, the
    /// tokens issued by exchanging them and by refreshing those, and the records carrying any of
    /// them. A check's memory then holds the sign-ins in flight, not every sign-in of the run.
    /// A later call with a forgotten code or token is refused as an unknown one would be.
    public func forget(codes issued: [String]) {
        var secrets = Set<String>()
        for code in issued {
            codes[code] = nil
            secrets.insert(Secret.elide(code))
            for refresh in exchanged.removeValue(forKey: code) ?? [] {
                if let sub = tokens[refresh]?.user.sub, var list = refreshBySub[sub] {
                    list.removeAll { $0 == refresh }
                    refreshBySub[sub] = list.isEmpty ? nil : list
                }
                for token in [refresh] + (children.removeValue(forKey: refresh) ?? []) {
                    secrets.insert(Secret.elide(token))
                    tokens[token] = nil
                }
            }
        }
        log.forget(carrying: secrets)
        // Their places in the expiry order go in batches too.
        codesForgotten += issued.count
        if codesForgotten >= 1024, codesForgotten * 2 >= codeOrder.count - codeOrderStart {
            codeOrder = codeOrder[codeOrderStart...].filter { codes[$0.code] != nil }
            codeOrderStart = 0
            codesForgotten = 0
        }
    }

    /// Whether a token the provider issued (refresh or access) has been revoked; nil if unknown.
    public func isRevoked(_ token: String) -> Bool? { tokens[token]?.revoked }

    /// Refresh tokens issued to `sub`, for tests and evidence.
    public func refreshTokens(for sub: String) -> [String] {
        (refreshBySub[sub] ?? []).sorted()
    }

    // MARK: Issuing

    func issueCode(clientID: String, user: MockUser, nonceClaim: String?, redirectURI: String?) -> String {
        let code = "c" + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        dropExpiredCodes()
        codes[code] = CodeGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, issuedAt: now, redirectURI: redirectURI)
        codeOrder.append((now, code))
        return code
    }

    /// Forgets codes past their lifetime, oldest first (an expired code is refused either way).
    func dropExpiredCodes() {
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

    func issueToken(kind: String, clientID: String, user: MockUser, nonceClaim: String?, parent: String?) -> String {
        let prefix = kind == "refresh_token" ? "r" : "a"
        let token = prefix + random.string(length: 32, alphabet: "0123456789abcdef") + ".0.mrsz." + random.string(length: 22)
        tokens[token] = TokenGrant(clientID: clientID, user: user, nonceClaim: nonceClaim, kind: kind, parent: parent)
        if kind == "refresh_token" { refreshBySub[user.sub, default: []].append(token) }
        if let parent { children[parent, default: []].append(token) }
        return token
    }

    /// The ID token `/auth/token` returns, bent by the override for X1/X3.
    func exchangedIDToken(clientID: String, user: MockUser, nonceClaim: String?, accessToken: String) -> UnsignedIDToken {
        let mint = minter()
        var claims = mint.idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: nil, accessToken: accessToken)
        switch override {
        case .differentSubject: claims["sub"] = .string(MockUser.random(using: random, profile: profile).sub)
        case .wrongIssuer: claims["iss"] = .string(issuer + ".evil.example")
        case .wrongAudience: claims["aud"] = .string(TokenMinter.otherAudience)
        case .missingSubject: claims["sub"] = nil
        case .error, nil: break
        }
        return UnsignedIDToken(mint: mint, claims: claims, forgery: .none, nonceClaim: nonceClaim, clientID: clientID, user: user)
    }

    /// P5 rotates the signing key before minting; P6 also adds keys the backend must skip.
    func rotateKeys(for forgery: TokenForgery) {
        switch forgery.caseID {
        case "P5": rotateSigningKey()
        case "P6":
            addUnusableKeys()
            rotateSigningKey()
        default: break
        }
    }
}

/// An ID token whose claims the provider settled on its actor, to be signed off it: the RSA
/// signature is most of a sign-in's or a code exchange's work, and every other request to the
/// provider would wait for it.
struct UnsignedIDToken: Sendable {
    var mint: TokenMinter
    var claims: JSONObject
    var forgery: TokenForgery
    var nonceClaim: String?
    var clientID: String
    var user: MockUser

    func signed() -> String {
        MockProvider.signed {
            try mint.idToken(
                claims: claims, forgery: forgery, nonceClaim: nonceClaim, clientID: clientID, user: user,
                notification: {
                    let event = NotificationEvent(kind: .emailEnabled, sub: user.sub, email: user.email)
                    return try mint.notification(
                        claims: mint.notificationClaims(clientID: clientID, event: event), forgery: .none, event: event, clientID: clientID, idToken: { "" })
                })
        }
    }
}
