import FlowModel
import Foundation
import JOSE

/// The forgeries of token-cases.md, one family per function: `TokenMinter.idToken` asks each in turn.
extension TokenMinter {
    /// The profile variants of token-cases.md (P2–P9): honest tokens shaped as some providers make them. `nil` for a case of another family.
    func providerVariant(_ caseID: String, claims base: JSONObject, index: Int, nonceClaim: String?, clientID: String, user: MockUser) throws -> String? {
        var claims = base
        switch caseID {
        case "P2":
            let typed = idTokenClaims(clientID: clientID, user: user, nonceClaim: nonceClaim, code: nil, booleans: index == 1)
            for claim in profile.claims where claim.type == .stringBoolean { claims[claim.name] = typed[claim.name] }
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
            if profile.claim("real_user_status") != nil { claims["real_user_status"] = .int(3) }
            claims.append("x_flowspec_unknown", .string("extra claims must be ignored"))
            claims.append("x_flowspec_object", .object(["nested": .array([.int(1), .bool(true)])]))
            claims.append("org_id", .string(random.string(length: 10)))
            return try honest(claims)
        case "P9":
            claims["iss"] = .string(issuers[min(index + 1, issuers.count - 1)])
            return try honest(claims)
        default:
            return nil
        }
    }

    /// Forgeries of the signature and header (S1–S13). `nil` for a case of another family.
    func signatureForgery(_ caseID: String, claims: JSONObject, index: Int) throws -> String? {
        switch caseID {
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
        case "S13":
            return try padded(claims, segment: index)
        default:
            return nil
        }
    }

    /// Forgeries of the time claims (C5–C10, C20, C21). `nil` for a case of another family.
    func timeForgery(_ caseID: String, claims base: JSONObject, index: Int) throws -> String? {
        var claims = base
        switch caseID {
        case "C5":
            if index == 0 {
                claims["exp"] = .int(now - 360)
                claims["iat"] = .int(now - 360 - tokenLifetime)
                if claims.contains("auth_time") { claims["auth_time"] = .int(now - 360 - tokenLifetime) }
                if claims.contains("nbf") { claims["nbf"] = .int(now - 360 - tokenLifetime) }
            } else {
                claims["exp"] = nil
            }
            return try honest(claims)
        case "C6":
            claims["exp"] = .string(String(now + tokenLifetime))
            return try honest(claims)
        case "C7":
            claims["iat"] = nil
            return try honest(claims)
        case "C8":
            claims["iat"] = .int(now - 7 * 86_400)
            if claims.contains("auth_time") { claims["auth_time"] = .int(now - 7 * 86_400) }
            if claims.contains("nbf") { claims["nbf"] = .int(now - 7 * 86_400) }
            return try honest(claims)
        case "C9":
            claims["iat"] = .int(now + 3600)
            claims["exp"] = .int(now + 3600 + tokenLifetime)
            return try honest(claims)
        case "C10":
            claims["nbf"] = .int(now + 3600)
            claims["exp"] = .int(now + 3600 + tokenLifetime)
            return try honest(claims)
        case "C20":
            claims["iat"] = .string(String(now))
            return try honest(claims)
        case "C21":
            claims["nbf"] = .string(String(now - 60))
            return try honest(claims)
        default:
            return nil
        }
    }

    /// Forgeries of the identity claims (C1–C3, C11–C13, C16–C18). `nil` for a case of another family.
    func claimForgery(_ caseID: String, claims base: JSONObject, index: Int, nonceClaim: String?, clientID: String, notification: () throws -> String) throws -> String? {
        var claims = base
        switch caseID {
        case "C1":
            switch index {
            case 0: claims["iss"] = .string(issuer + ".evil.example")
            case 1: claims["iss"] = .string(issuer + "/")
            case 2: claims["iss"] = .string(issuer.hasPrefix("https://") ? "http://" + issuer.dropFirst(8) : "http://" + issuer)
            default: claims["iss"] = nil
            }
            return try honest(claims)
        case "C2":
            claims["aud"] = index == 0 ? .string(Self.otherAudience) : nil
            return try honest(claims)
        case "C3":
            claims["aud"] = .array([.string(clientID), .string(Self.otherAudience)])
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
            if profile.claim("nonce_supported") != nil { claims["nonce_supported"] = .bool(true) }
            return try honest(claims)
        case "C16":
            let name = TokenForgery.duplicatedClaims[min(index / 2, TokenForgery.duplicatedClaims.count - 1)].claim
            let wrong: JSONNode
            switch name {
            case "aud": wrong = .string(Self.otherAudience)
            case "exp": wrong = .int(now - 360)
            case "iss": wrong = .string(issuer + ".evil.example")
            case "sub": wrong = .string(MockUser.random(using: random, profile: profile).sub)
            default: wrong = .string((nonceClaim ?? "") + "1")
            }
            let right = claims[name] ?? .string(clientID)
            let pair = index % 2 == 0 ? [right, wrong] : [wrong, right]
            var duplicated = JSONObject()
            for member in claims.members where member.name != name { duplicated.append(member.name, member.value) }
            duplicated.append(name, pair[0])
            duplicated.append(name, pair[1])
            return try honest(duplicated)
        case "C17":
            return index == 0 ? try notification() : try honest(claims)
        case "C18":
            claims["azp"] = .string(Self.otherAudience)
            return try honest(claims)
        default:
            return nil
        }
    }
}
