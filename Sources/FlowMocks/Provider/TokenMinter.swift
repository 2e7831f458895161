import Foundation
import JOSE

/// Builds Apple-shaped tokens byte for byte: honest ones and every forgery of token-cases.md.
/// A value made fresh for each mint by `MockProvider` (which owns the keys and the state that
/// P5/P6 change before minting).
struct TokenMinter {
    /// Keys of the JWKS (usable ones, in served order); `signing` is the current one.
    var keys: [ProviderKey]
    var signing: ProviderKey
    var attacker: RSAKey
    var attackerKeyID: String
    /// Base URL of the running provider, for `jku`/`x5u` (S8).
    var baseURL: String
    var now: Int64
    var random: any RandomSource

    static let otherAudience = "com.attacker.app"
    static let tokenLifetime: Int64 = 600

    // MARK: Claims

    func idTokenClaims(clientID: String, user: MockUser, nonceClaim: String?, code: String?, booleans: Bool = false) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(FlowMocks.appleIssuer),
            "aud": .string(clientID),
            "exp": .int(now + Self.tokenLifetime),
            "iat": .int(now),
            "sub": .string(user.sub),
        ]
        if let nonceClaim { claims.append("nonce", .string(nonceClaim)) }
        if let code { claims.append("c_hash", .string(Self.halfHash(code))) }
        claims.append("email", .string(user.email))
        claims.append("email_verified", booleans ? .bool(user.emailVerified) : .string(user.emailVerified ? "true" : "false"))
        claims.append("is_private_email", booleans ? .bool(user.isPrivateEmail) : .string(user.isPrivateEmail ? "true" : "false"))
        claims.append("auth_time", .int(now))
        if nonceClaim != nil { claims.append("nonce_supported", .bool(true)) }
        claims.append("real_user_status", .int(Int64(user.realUserStatus)))
        return claims
    }

    func notificationClaims(clientID: String, event: NotificationEvent) -> JSONObject {
        [
            "iss": .string(FlowMocks.appleIssuer),
            "aud": .string(clientID),
            "iat": .int(now),
            "exp": .int(now + Self.tokenLifetime),
            "jti": .string(event.jti ?? random.string(length: 22)),
            "events": .string(event.eventsString(now: now)),
        ]
    }

    /// `c_hash`/`at_hash`: base64url of the left half of SHA-256.
    static func halfHash(_ value: String) -> String {
        Base64URL.encode(Digest.sha256(Array(value.utf8)).prefix(16))
    }

    static func sha256Hex(_ value: String) -> String {
        Digest.sha256(Array(value.utf8)).map { String(format: "%02x", $0) }.joined()
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
        var claims = base
        switch caseID {
        case "P2":
            let booleans = index == 1
            claims["email_verified"] = booleans ? .bool(user.emailVerified) : .string(user.emailVerified ? "true" : "false")
            claims["is_private_email"] = booleans ? .bool(user.isPrivateEmail) : .string(user.isPrivateEmail ? "true" : "false")
            return try honest(claims)
        case "P3":
            claims["aud"] = .array([.string(clientID)])
            return try honest(claims)
        case "P4":
            let key = keys[min(index + 1, keys.count - 1)]
            return try sign(header(kid: key.kid), claims, with: key.key)
        case "P5", "P6":
            return try honest(claims)  // the provider rotated (and for P6 added unusable keys) first
        case "P7":
            claims["nonce"] = nil
            claims["nonce_supported"] = .bool(false)
            return try honest(claims)
        case "P8":
            claims["real_user_status"] = .int(3)
            claims.append("x_flowspec_unknown", .string("extra claims must be ignored"))
            claims.append("transfer_sub", .string("000000.\(random.string(length: 32, alphabet: "0123456789abcdef")).0000"))
            claims.append("org_id", .string(random.string(length: 10)))
            return try honest(claims)
        case "S1":
            let token = try honest(claims)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if index == 1 { return "\(parts[0]).\(parts[1])." }
            var signature = Base64URL.decode(parts[2]) ?? []
            for i in stride(from: signature.count / 2, to: min(signature.count, signature.count / 2 + 8), by: 1) { signature[i] ^= 0xFF }
            return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
        case "S2":
            return try sign(header(kid: signing.kid), claims, with: attacker)
        case "S3":
            let alg = ["none", "None", "NONE"][index % 3]
            let h = header(kid: signing.kid, alg: alg)
            let input = JWS.signingInput(header: h.jsonBytes(), payload: claims.jsonBytes())
            let signature = index < 3 ? [] : try signing.key.sign(input, algorithm: .RS256)
            return JWS.compact(header: h.jsonBytes(), payload: claims.jsonBytes(), signature: signature)
        case "S4":
            let secret: [UInt8]
            switch index {
            case 0: secret = Array(signing.key.publicKeyPEM.utf8)
            case 1: secret = signing.key.publicKeyDER
            default: secret = signing.jwk.jsonBytes()
            }
            return try JWS.sign(header: header(kid: signing.kid, alg: "HS256"), payload: claims, signer: .hmac(secret))
        case "S5":
            let h = header(kid: signing.kid, alg: index == 0 ? "RS512" : "PS256")
            return try JWS.sign(header: h, payload: claims, signer: .rsa(signing.key, .RS256))
        case "S6":
            let h = header(kid: signing.kid, alg: "ES256")
            return JWS.compact(header: h.jsonBytes(), payload: claims.jsonBytes(), signature: [UInt8](repeating: 0, count: 64))
        case "S7":
            var h = header(kid: attackerKeyID)
            h.append("jwk", .object(attacker.publicJWK(kid: attackerKeyID).jsonObject))
            return try sign(h, claims, with: attacker)
        case "S8":
            var h = header(kid: attackerKeyID)
            if index == 0 {
                h.append("jku", .string(baseURL + MockProvider.attackerJWKSPath))
            } else {
                h.append("x5u", .string(baseURL + MockProvider.attackerX5UPath))
            }
            return try sign(h, claims, with: attacker)
        case "S9":
            let kid = TokenForgery.hostileKeyIDs[index % TokenForgery.hostileKeyIDs.count]
            return try sign(header(kid: kid), claims, with: keys[0].key)
        case "S10":
            return try sign(header(kid: "fs-unknown-" + random.string(length: 8)), claims, with: keys[0].key)
        case "S11":
            var h = header(kid: signing.kid)
            h.append("crit", .array(["x-unknown"]))
            h.append("x-unknown", .bool(true))
            return try sign(h, claims, with: signing.key)
        case "S12":
            return try malformed(claims, index: index)
        case "C1":
            switch index {
            case 0: claims["iss"] = .string(FlowMocks.appleIssuer + ".evil.example")
            case 1: claims["iss"] = .string(FlowMocks.appleIssuer + "/")
            case 2: claims["iss"] = .string("http://appleid.apple.com")
            default: claims["iss"] = nil
            }
            return try honest(claims)
        case "C2":
            claims["aud"] = index == 0 ? .string(Self.otherAudience) : nil
            return try honest(claims)
        case "C3":
            claims["aud"] = .array([.string(clientID), .string(Self.otherAudience)])
            return try honest(claims)
        case "C5":
            if index == 0 {
                claims["exp"] = .int(now - 360)
                claims["iat"] = .int(now - 360 - Self.tokenLifetime)
                claims["auth_time"] = .int(now - 360 - Self.tokenLifetime)
            } else {
                claims["exp"] = nil
            }
            return try honest(claims)
        case "C6":
            claims["exp"] = .string(String(now + Self.tokenLifetime))
            return try honest(claims)
        case "C7":
            claims["iat"] = nil
            return try honest(claims)
        case "C8":
            claims["iat"] = .int(now - 7 * 86_400)
            claims["auth_time"] = .int(now - 7 * 86_400)
            return try honest(claims)
        case "C9":
            claims["iat"] = .int(now + 3600)
            claims["exp"] = .int(now + 3600 + Self.tokenLifetime)
            return try honest(claims)
        case "C10":
            claims.append("nbf", .int(now + 3600))
            claims["exp"] = .int(now + 3600 + Self.tokenLifetime)
            return try honest(claims)
        case "C11":
            switch index {
            case 0: claims["sub"] = nil
            case 1: claims["sub"] = .string("")
            default: claims["sub"] = .int(Int64(random.string(length: 9, alphabet: "123456789")) ?? 123_456_789)
            }
            return try honest(claims)
        case "C12":
            claims["nonce"] = .string((nonceClaim ?? "") + "1")
            return try honest(claims)
        case "C13":
            claims["nonce"] = nil
            claims["nonce_supported"] = .bool(true)
            return try honest(claims)
        case "C16":
            var duplicated = JSONObject()
            for member in claims.members {
                if member.name == "aud" {
                    let pair: [JSONNode] = index == 0 ? [.string(clientID), .string(Self.otherAudience)] : [.string(Self.otherAudience), .string(clientID)]
                    duplicated.append("aud", pair[0])
                    duplicated.append("aud", pair[1])
                } else {
                    duplicated.append(member.name, member.value)
                }
            }
            return try honest(duplicated)
        case "C17":
            return index == 0 ? try notification() : try honest(claims)
        default:
            // C14, C15 and anything else: the honest token (the mutation is in what is posted).
            return try honest(claims)
        }
    }

    private func malformed(_ claims: JSONObject, index: Int) throws -> String {
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
        case 4:
            return "\(parts[0]).\(parts[1])=.\(parts[2])=="
        default:
            let header = Array("not json".utf8)
            let signature = try signing.key.sign(JWS.signingInput(header: header, payload: claims.jsonBytes()), algorithm: .RS256)
            return JWS.compact(header: header, payload: claims.jsonBytes(), signature: signature)
        }
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
            claims["iss"] = .string("https://appleid.apple.example")
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
