import FlowModel
import Foundation
import JOSE

/// Builds tokens byte for byte as the profile says an honest one looks (its claims, their types,
/// its issuer), and every forgery of token-cases.md. A value made fresh for each mint by
/// `MockProvider` (which owns the keys and the state that P5/P6 change before minting).
/// Sendable: the provider settles the claims on its actor and signs outside it.
struct TokenMinter: Sendable {
    var profile: ProviderProfile
    /// The profile's issuers with `{{provider.url}}` filled in; the first is the honest one.
    var issuers: [String]
    /// Keys of the JWKS (usable ones, in served order); `signing` is the current one.
    var keys: [ProviderKey]
    var signing: ProviderKey
    /// Present when the forgery needs it (S2, S7, S8, N2).
    var attackerKey: RSAKey?
    var attackerKeyID: String
    /// Base URL of the running provider, for `jku`/`x5u` (S8).
    var baseURL: String
    var now: Int64
    var random: any RandomSource

    var attacker: RSAKey {
        guard let attackerKey else { preconditionFailure("the provider must supply the attacker key for this forgery") }
        return attackerKey
    }

    static let otherAudience = "com.attacker.app"
    var issuer: String { issuers[0] }
    var tokenLifetime: Int64 { Int64(profile.idTokenLifetime) }

    // MARK: Claims

    /// An honest ID token's claims: `iss`, `aud`, `exp`, `iat`, `sub`, `nonce`, then the
    /// profile's claims in order, each of its type, present when its `when` holds.
    /// `booleans` writes string-boolean claims as JSON booleans (P2).
    func idTokenClaims(clientID: String, user: MockUser, nonceClaim: String?, code: String?, accessToken: String? = nil, booleans: Bool = false) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer),
            "aud": .string(clientID),
            "exp": .int(now + tokenLifetime),
            "iat": .int(now),
            "sub": .string(user.sub),
        ]
        if let nonceClaim { claims.append("nonce", .string(nonceClaim)) }
        for claim in profile.claims {
            switch claim.when {
            case .always: break
            case .nonce: if nonceClaim == nil { continue }
            case .code: if code == nil { continue }
            case .accessToken: if accessToken == nil { continue }
            }
            let text = Placeholders.fill(claim.value) { name in
                switch name {
                case "user.sub": user.sub
                case "user.email": user.email
                case "user.email_verified": user.emailVerified ? "true" : "false"
                case "user.is_private_email": user.isPrivateEmail ? "true" : "false"
                case "user.real_user_status": String(user.realUserStatus)
                case "user.name": user.name
                case "user.given_name": user.firstName ?? ""
                case "user.family_name": user.lastName ?? ""
                case "user.oid": user.objectID
                case "client_id": clientID
                case "now": String(now)
                case "c_hash": code.map(Self.halfHash) ?? ""
                case "at_hash": accessToken.map(Self.halfHash) ?? ""
                case "provider.url": baseURL
                default: profile.defaults[name]
                }
            }
            claims[claim.name] = Self.typed(text, claim.type, booleans: booleans)
        }
        return claims
    }

    static func typed(_ text: String, _ type: ClaimType, booleans: Bool) -> JSONNode {
        switch type {
        case .string: .string(text)
        case .boolean: .bool(text == "true")
        case .stringBoolean: booleans ? .bool(text == "true") : .string(text == "true" ? "true" : "false")
        case .integer: .int(Int64(text) ?? 0)
        case .number: Double(text).map { .double($0) } ?? .int(0)
        }
    }

    func notificationClaims(clientID: String, event: NotificationEvent) -> JSONObject {
        [
            "iss": .string(issuer),
            "aud": .string(clientID),
            "iat": .int(now),
            "exp": .int(now + tokenLifetime),
            "jti": .string(event.jti ?? random.string(length: 22)),
            "events": .string(event.eventsString(now: now)),
        ]
    }

    /// `c_hash`/`at_hash`: base64url of the left half of SHA-256.
    static func halfHash(_ value: String) -> String {
        Base64URL.encode(Digest.sha256(Array(value.utf8)).prefix(16))
    }

    static func sha256Hex(_ value: String) -> String {
        Hex.string(Digest.sha256(Array(value.utf8)))
    }

    // MARK: Signing

    func header(kid: String, alg: String = "RS256") -> JSONObject {
        ["kid": .string(kid), "alg": .string(alg)]
    }

    func sign(_ header: JSONObject, _ payload: JSONObject, with key: RSAKey) throws -> String {
        try JWS.sign(header: header, payload: payload, signer: .rsa(key, .RS256))
    }

    func honest(_ payload: JSONObject) throws -> String {
        try sign(header(kid: signing.kid), payload, with: signing.key)
    }

    // MARK: ID token forgeries

    /// The ID token for `forgery` over `claims` (already carrying the honest nonce claim).
    /// Nonce-related claim changes (C12, C13, P7) are applied here; `rawNonce` is what the client
    /// will post.
    func idToken(claims base: JSONObject, forgery: TokenForgery, nonceClaim: String?, clientID: String, user: MockUser, notification: () throws -> String) throws -> String {
        guard case .variant(let caseID, let index) = forgery else { return try honest(base) }
        if let token = try providerVariant(caseID, claims: base, index: index, nonceClaim: nonceClaim, clientID: clientID, user: user) { return token }
        if let token = try signatureForgery(caseID, claims: base, index: index) { return token }
        if let token = try timeForgery(caseID, claims: base, index: index) { return token }
        if let token = try claimForgery(caseID, claims: base, index: index, nonceClaim: nonceClaim, clientID: clientID, notification: notification) { return token }
        // C14, C15 and anything else: the honest token (the mutation is in what is posted).
        return try honest(base)
    }

    func malformed(_ claims: JSONObject, index: Int) throws -> String {
        let token = try honest(claims)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch index {
        case 0:
            return "\(parts[0]).\(parts[1])"
        case 1:
            return "\(token).\(parts[2])"
        case 2:
            let h: JSONObject = ["alg": "RSA-OAEP", "enc": "A256GCM", "kid": .string(signing.kid)]
            return [
                Base64URL.encode(h.jsonBytes()), Base64URL.encode(random.bytes(256)), Base64URL.encode(random.bytes(12)),
                Base64URL.encode(claims.jsonBytes()), Base64URL.encode(random.bytes(16)),
            ].joined(separator: ".")
        case 3:
            var standard = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            if !standard.contains("+") && !standard.contains("/") { standard = "+" + standard.dropFirst() }
            return "\(parts[0]).\(parts[1]).\(standard)"
        default:
            let header = Array("not json".utf8)
            let signature = try signing.key.sign(JWS.signingInput(header: header, payload: claims.jsonBytes()), algorithm: .RS256)
            return JWS.compact(header: header, payload: claims.jsonBytes(), signature: signature)
        }
    }

    /// S13: canonical `=` padding on one segment, everything else honest. For the header and
    /// the payload the JSON gets a space so its base64url needs padding, and the signature is
    /// computed over the padded text actually sent, so only a strict decoder refuses it; for
    /// the signature, padding is appended to a genuine token (a different text, the same
    /// signature: what a token-keyed replay cache would miss).
    func padded(_ claims: JSONObject, segment: Int) throws -> String {
        func padding(_ count: Int) -> String { String(repeating: "=", count: (3 - count % 3) % 3) }
        func needingPadding(_ json: [UInt8]) -> [UInt8] { json.count % 3 == 0 ? Array(json.dropLast()) + Array(" }".utf8) : json }
        if segment >= 2 {
            let token = try honest(claims)
            let signatureLength = Base64URL.decode(String(token.split(separator: ".").last ?? ""))?.count ?? 256
            return token + (padding(signatureLength).isEmpty ? "==" : padding(signatureLength))
        }
        var headerJSON = header(kid: signing.kid).jsonBytes()
        var payloadJSON = claims.jsonBytes()
        if segment == 0 { headerJSON = needingPadding(headerJSON) } else { payloadJSON = needingPadding(payloadJSON) }
        let headerSegment = Base64URL.encode(headerJSON) + (segment == 0 ? padding(headerJSON.count) : "")
        let payloadSegment = Base64URL.encode(payloadJSON) + (segment == 1 ? padding(payloadJSON.count) : "")
        let input = Array("\(headerSegment).\(payloadSegment)".utf8)
        return "\(headerSegment).\(payloadSegment).\(Base64URL.encode(try signing.key.sign(input, algorithm: .RS256)))"
    }

    // MARK: Notification forgeries

    func notification(claims base: JSONObject, forgery: TokenForgery, event: NotificationEvent, clientID: String, idToken: () throws -> String) throws -> String {
        guard case .variant(let caseID, let index) = forgery else { return try honest(base) }
        if caseID == "C17" { return index == 1 ? try idToken() : try honest(base) }
        guard forgery.canApply(to: .notification) else { return try honest(base) }
        if caseID != "N2" {
            var claims = base
            switch caseID {
            case "P2":
                // The event's flags as strings (Apple's usual form) or booleans.
                var object = (try? StrictJSON.parseObject(Array(event.eventsString(now: now).utf8))) ?? JSONObject()
                let value = event.isPrivateEmail ?? true
                object["is_private_email"] = index == 1 ? .bool(value) : .string(value ? "true" : "false")
                claims["events"] = .string(object.jsonString())
                return try honest(claims)
            case "C11":
                var object = (try? StrictJSON.parseObject(Array(event.eventsString(now: now).utf8))) ?? JSONObject()
                switch index {
                case 0: object["sub"] = nil
                case 1: object["sub"] = .string("")
                default: object["sub"] = .int(123_456_789)
                }
                claims["events"] = .string(object.jsonString())
                return try honest(claims)
            default:
                // Header, signature and top-level claim mutations work on any JWT.
                let user = MockUser(sub: event.sub, email: event.email ?? "")
                return try self.idToken(claims: claims, forgery: forgery, nonceClaim: nil, clientID: clientID, user: user, notification: { try honest(base) })
            }
        }
        var claims = base
        switch index {
        case 0:
            let token = try honest(claims)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            var signature = Base64URL.decode(parts[2]) ?? []
            for i in stride(from: signature.count / 2, to: min(signature.count, signature.count / 2 + 8), by: 1) { signature[i] ^= 0xFF }
            return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
        case 1:
            return try sign(header(kid: signing.kid), claims, with: attacker)
        case 2:
            claims["aud"] = .string(Self.otherAudience)
        case 3:
            claims["iss"] = .string(issuer + ".evil.example")
        case 4:
            claims["iat"] = .int(now - 7200)
            claims["exp"] = .int(now - 3600)
        default:
            let h = header(kid: signing.kid, alg: "none")
            return JWS.compact(header: h.jsonBytes(), payload: claims.jsonBytes(), signature: [])
        }
        return try honest(claims)
    }
}
