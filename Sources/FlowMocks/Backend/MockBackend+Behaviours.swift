import FlowModel
import FlowParser
import Foundation
import JOSE

/// What a matched route does: commit captures and sessions, and the behaviours inferred from its templates (sign in, code only, refresh, notification).
extension MockBackend {
    // MARK: Commit

    func commit(_ acceptance: inout Acceptance, captures: [Capture], request: MockHTTPRequest) async -> [String: String] {
        var issued: [String: String] = [:]
        for capture in captures { issued[capture.name] = freshToken() }
        self.issued = issued
        let bearerSession = sessions.id(of: request.bearerToken)
        switch acceptance.effect {
        case .newSession:
            let key = acceptance.account ?? Self.anonymousPrefix + random.string(length: 12)
            acceptance.account = key
            if accounts[key] == nil { accounts[key] = Account(key: key) }
            if let hash = acceptance.replayHash, has(.acceptReplay) { replayCache[hash] = key }
            createSession(account: key, tokens: issued)
        case .deleteAccount:
            if let id = bearerSession, let key = sessions.session(id)?.account {
                acceptance.account = key
                await revokeAtProvider(account: key)
                accounts[key]?.deleted = true
                accounts[key]?.refreshToken = nil
                accounts[key]?.accessToken = nil
                endSessions(of: key)
            }
        case .notification(let jti, let type, let sub, let email):
            if processedJTIs.insert(jti).inserted {
                switch type {
                case "consent-revoked":
                    endSessions(of: sub)
                case "account-delete", "account-deleted":
                    accounts[sub]?.deleted = true
                    endSessions(of: sub)
                case "email-disabled", "email-enabled":
                    if let email { accounts[sub]?.email = email }
                default:
                    break
                }
            }
        case .none:
            if !issued.isEmpty {
                if let id = bearerSession {
                    for (name, token) in issued { sessions.add(token, named: name, to: id) }
                } else {
                    let key = Self.anonymousPrefix + random.string(length: 12)
                    accounts[key] = Account(key: key)
                    createSession(account: key, tokens: issued)
                }
            }
        }
        return issued
    }

    /// Accounts made up for a client that got values without signing in; forgotten with their
    /// last session.
    static let anonymousPrefix = "anonymous-"

    func createSession(account: String, tokens: [String: String]) {
        for orphan in sessions.create(account: account, tokens: tokens) where orphan.hasPrefix(Self.anonymousPrefix) {
            accounts[orphan] = nil
        }
    }

    func endSessions(of account: String) {
        guard !has(.keepSessionAfterRevoke) else { return }
        sessions.end(account: account)
    }

    // MARK: Behaviours

    func evaluate(_ behaviour: RouteBehaviour, bindings: [String: String], request: MockHTTPRequest, flow: Flow, route: BackendRoute) async throws -> Acceptance {
        var session: Session?
        if behaviour.contains(.bearer) {
            guard let live = sessions.live(request.bearerToken) else {
                throw Rejection.unauthorized("no live session for the bearer token")
            }
            session = live
        }
        let audiences = self.audiences(of: route)
        if behaviour.contains(.notification) || behaviour.contains(.signIn) || behaviour.contains(.codeExchange) {
            guard links[flow.id] != nil else { throw Rejection.request("flow \(flow.id) names no identity provider") }
        }
        if behaviour.contains(.notification), let link = links[flow.id] {
            return try await evaluateNotification(bindings: bindings, request: request, audiences: audiences, link: link)
        }
        if behaviour.contains(.signIn), let link = links[flow.id] {
            return try await evaluateSignIn(behaviour, bindings: bindings, flow: flow, audiences: audiences, link: link)
        }
        if behaviour.contains(.codeExchange), let link = links[flow.id] {
            return try await evaluateCodeOnly(bindings: bindings, flow: flow, audiences: audiences, link: link)
        }
        if behaviour.contains(.deletion) {
            return Acceptance(account: session?.account, effect: .deleteAccount)
        }
        if behaviour.contains(.refresh), let session {
            return try await evaluateRefresh(session: session)
        }
        if behaviour.contains(.credentials) {
            let declared = Self.variables(of: flow)
            var account: String?
            for variable in flow.variables {
                guard let value = bindings[variable.name] else { continue }
                guard value == declared[variable.name] else { throw Rejection.unauthorized("invalid credentials") }
                if account == nil { account = value }
            }
            let key = account ?? "anonymous"
            if accounts[key] == nil {
                accounts[key] = Account(key: key, sub: key, email: key.contains("@") ? key : "\(key)@example.com")
            }
            return Acceptance(account: key, effect: .newSession)
        }
        return Acceptance(account: session?.account, effect: .none)
    }

    func audiences(of route: BackendRoute) -> Set<String> {
        var result = Set<String>()
        for candidate in route.candidates {
            if let clientID = flows[candidate.flowIndex].variables.first(where: { $0.name == "client_id" })?.value { result.insert(clientID) }
        }
        if result.isEmpty {
            for candidate in route.candidates { if let id = links[flows[candidate.flowIndex].id]?.defaultClientID { result.insert(id) } }
        }
        return result
    }

    func evaluateSignIn(_ behaviour: RouteBehaviour, bindings: [String: String], flow: Flow, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        guard let token = bindings["provider.id_token"], !token.isEmpty else { throw Rejection.request("id_token is missing") }
        let hash = TokenDigest(token)
        if has(.acceptReplay), let key = replayCache[hash] {
            return Acceptance(account: key, effect: .newSession, values: accountValues(key))
        }
        let verified = try await verify(token, link: link, skipSignature: false)
        let claims = verified.claims
        try checkIDTokenClaims(claims, audiences: audiences, rawNonce: bindings["provider.nonce"], link: link, nonce: flow.nonce ?? link.profile.nonce)
        if !has(.acceptReplay) {
            // Pruned in batches: filtering on every sign-in made a load run quadratic.
            if usedTokens.count >= usedTokensPruneAt {
                usedTokens = usedTokens.filter { $0.value + Self.leeway >= now }
                usedTokensPruneAt = max(1024, 2 * usedTokens.count)
            }
            guard usedTokens[hash] == nil else { throw Rejection.invalid("this id_token was already used (replay)") }
            usedTokens[hash] = claims["exp"]?.doubleValue.map { Int64($0) } ?? now + 600
        }
        let sub = claims.string("sub") ?? ""
        let clientID = Self.audience(claims, within: audiences) ?? link.defaultClientID
        var exchanged: (refresh: String?, access: String?)?
        if behaviour.contains(.codeExchange), !has(.noCodeExchange) {
            guard let code = bindings["provider.code"], !code.isEmpty else { throw Rejection.request("authorization code is missing") }
            exchanged = try await exchange(code: code, clientID: clientID, flow: flow, expectedSub: sub, link: link)
        }
        upsertAccount(sub: sub, email: claims.string("email"), clientID: clientID, flowID: flow.id, tokens: exchanged)
        return Acceptance(account: sub, effect: .newSession, values: accountValues(sub), replayHash: hash)
    }

    func evaluateCodeOnly(bindings: [String: String], flow: Flow, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        guard !has(.noCodeExchange) else { return Acceptance(account: nil, effect: .newSession) }
        guard let code = bindings["provider.code"], !code.isEmpty else { throw Rejection.request("authorization code is missing") }
        let clientID = Self.variables(of: flow)["client_id"] ?? link.defaultClientID
        let result = try await exchangeRaw(code: code, clientID: clientID, flow: flow, link: link)
        let verified = try await verify(result.idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: nil, link: link)
        let sub = verified.claims.string("sub") ?? ""
        upsertAccount(sub: sub, email: verified.claims.string("email"), clientID: clientID, flowID: flow.id, tokens: (result.refresh, result.access))
        return Acceptance(account: sub, effect: .newSession, values: accountValues(sub))
    }

    func evaluateRefresh(session: Session) async throws -> Acceptance {
        guard let account = accounts[session.account], let refresh = account.refreshToken, let sub = account.sub,
            let link = account.flowID.flatMap({ links[$0] })
        else {
            return Acceptance(account: session.account, effect: .newSession, values: accountValues(session.account))
        }
        let clientID = account.clientID ?? link.defaultClientID
        let response = try await postToProvider(link, link.profile.endpoints.token, clientID: clientID, [
            ("grant_type", "refresh_token"), ("refresh_token", refresh),
        ])
        guard response.status == 200, let body = response.jsonBody, case .string(let idToken)? = JSONPath(parsing: "$.id_token")?.evaluate(in: body) else {
            endSessions(of: session.account)
            throw Rejection.unauthorized("the provider refused the refresh token (\(Self.errorCode(response)))")
        }
        let verified = try await verify(idToken, link: link, skipSignature: false)
        try checkExchangedClaims(verified.claims, clientID: clientID, expectedSub: sub, link: link)
        if case .string(let access)? = JSONPath(parsing: "$.access_token")?.evaluate(in: body) { accounts[session.account]?.accessToken = access }
        return Acceptance(account: session.account, effect: .newSession, values: accountValues(session.account))
    }

    func evaluateNotification(bindings: [String: String], request: MockHTTPRequest, audiences: Set<String>, link: BackendProviderLink) async throws -> Acceptance {
        var jwt = bindings["provider.notification"]
        if jwt == nil, let body = JSONNode.parse(request.body), case .string(let payload)? = JSONPath(parsing: "$.payload")?.evaluate(in: body) {
            jwt = payload
        }
        guard let jwt, !jwt.isEmpty else { throw Rejection.request("notification payload is missing") }
        let verified = try await verify(jwt, link: link, skipSignature: has(.ignoreNotificationSignature))
        let claims = verified.claims
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") { throw Rejection.invalid("notification iss is not the provider's") }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], audiences) { throw Rejection.invalid("notification aud is not ours") }
        try checkTimes(claims)
        guard let jti = claims.string("jti"), !jti.isEmpty else { throw Rejection.invalid("notification has no jti") }
        guard let eventsText = claims.string("events"), let events = try? StrictJSON.parseObject(Array(eventsText.utf8)),
            let type = events.string("type"), let sub = events.string("sub"), !sub.isEmpty
        else { throw Rejection.invalid("notification has no events object (type, sub)") }
        return Acceptance(account: sub, effect: .notification(jti: jti, type: type, sub: sub, email: events.string("email")))
    }

    func accountValues(_ key: String) -> [String: String] {
        guard let account = accounts[key] else { return [:] }
        var values: [String: String] = [:]
        if let sub = account.sub { values["provider.sub"] = sub }
        if let email = account.email { values["provider.email"] = email }
        return values
    }

    func upsertAccount(sub: String, email: String?, clientID: String, flowID: String, tokens: (refresh: String?, access: String?)?) {
        var account = accounts[sub] ?? Account(key: sub, sub: sub)
        if account.deleted { account = Account(key: sub, sub: sub) }
        account.email = email ?? account.email
        account.clientID = clientID
        account.flowID = flowID
        if let tokens {
            account.refreshToken = tokens.refresh ?? account.refreshToken
            account.accessToken = tokens.access ?? account.accessToken
        }
        accounts[sub] = account
    }
}
