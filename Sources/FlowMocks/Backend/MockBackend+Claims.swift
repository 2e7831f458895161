import FlowModel
import FlowParser
import Foundation
import JOSE

/// Claim checks of ID tokens: audience, nonce, times, and the exchanged token's subject.
extension MockBackend {
    // MARK: Claims

    static func audience(_ claims: JSONObject, within audiences: Set<String>) -> String? {
        if let aud = claims.string("aud") { return audiences.contains(aud) ? aud : nil }
        if let first = claims["aud"]?.arrayValue?.first?.stringValue { return audiences.contains(first) ? first : nil }
        return nil
    }

    /// `aud` is one of ours, as a string or an array holding only ours.
    static func audienceAccepted(_ node: JSONNode?, _ audiences: Set<String>) -> Bool {
        guard let node else { return false }
        if let aud = node.stringValue { return audiences.contains(aud) }
        guard let elements = node.arrayValue, !elements.isEmpty else { return false }
        return elements.allSatisfy { $0.stringValue.map(audiences.contains) ?? false }
    }

    static func isNumber(_ node: JSONNode?) -> Bool {
        switch node {
        case .int?, .double?: true
        default: false
        }
    }

    func checkIDTokenClaims(_ claims: JSONObject, audiences: Set<String>, rawNonce: String?, link: BackendProviderLink, nonce transform: NonceTransform) throws {
        if claims.contains("events") { throw Rejection.invalid("a notification is not an ID token") }
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") {
            throw Rejection.invalid("iss is not one of \(link.issuers.joined(separator: ", "))")
        }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], audiences) { throw Rejection.invalid("aud is not this app") }
        // OpenID Connect Core §3.1.3.7: an azp that is present must be this client.
        if !has(.skipAud), let azp = claims["azp"], !(azp.stringValue.map(audiences.contains) ?? false) {
            throw Rejection.invalid("azp is not this app")
        }
        try checkTimes(claims)
        guard let sub = claims.string("sub"), !sub.isEmpty else { throw Rejection.invalid("sub missing, empty or not a string") }
        // A nonce posted empty counts as posted (and fails the comparison), unless the backend
        // checks the nonce only "if one was sent" (`nonce-optional`: absent, empty, null).
        let posted = has(.nonceOptional) && rawNonce?.isEmpty == true ? nil : rawNonce
        if let rawNonce = posted, !has(.skipNonce) {
            // The flow says how the nonce reaches the claim; the defect applies the other rule.
            let hashed = (transform == .sha256) != has(.nonceUnhashed)
            let expected = hashed ? TokenMinter.sha256Hex(rawNonce) : rawNonce
            if let claim = claims["nonce"] {
                guard claim.stringValue == expected else { throw Rejection.invalid("nonce does not match the SHA-256 of the posted nonce") }
            } else {
                let supported = claims["nonce_supported"]
                let unsupported = supported == .bool(false) || supported == .string("false")
                guard unsupported else { throw Rejection.invalid("nonce claim missing") }
            }
        }
    }

    /// A NumericDate: a JSON number; with the `iat-string`/`nbf-string` defects also a string
    /// of digits, as PyJWT's `int(payload["iat"])` reads it.
    static func numericDate(_ node: JSONNode?, acceptingStrings: Bool) -> Double? {
        if isNumber(node) { return node?.doubleValue }
        if acceptingStrings, let text = node?.stringValue { return Double(text) }
        return nil
    }

    func checkTimes(_ claims: JSONObject) throws {
        let now = self.now
        if !has(.skipExp) {
            guard Self.isNumber(claims["exp"]), let exp = claims["exp"]?.doubleValue else { throw Rejection.invalid("exp missing or not a number") }
            guard exp + Double(Self.leeway) > Double(now) else { throw Rejection.invalid("token expired") }
        }
        if !has(.skipIat) {
            guard let iat = Self.numericDate(claims["iat"], acceptingStrings: has(.iatString)) else { throw Rejection.invalid("iat missing or not a number") }
            guard iat <= Double(now + Self.leeway) else { throw Rejection.invalid("iat is in the future") }
        }
        if !has(.skipNbf), let nbf = claims["nbf"] {
            guard let value = Self.numericDate(nbf, acceptingStrings: has(.nbfString)) else { throw Rejection.invalid("nbf is not a number") }
            guard value <= Double(now + Self.leeway) else { throw Rejection.invalid("token not valid yet (nbf)") }
        }
    }

    func checkExchangedClaims(_ claims: JSONObject, clientID: String, expectedSub: String?, link: BackendProviderLink) throws {
        if !has(.skipIss), !link.issuers.contains(claims.string("iss") ?? "\u{0}") { throw Rejection.invalid("exchanged id_token: iss is not the provider's") }
        if !has(.skipAud), !Self.audienceAccepted(claims["aud"], [clientID]) { throw Rejection.invalid("exchanged id_token: aud is not this app") }
        try checkTimes(claims)
        guard let sub = claims.string("sub"), !sub.isEmpty else { throw Rejection.invalid("exchanged id_token: sub missing") }
        if let expectedSub, !has(.skipExchangeSubject), sub != expectedSub {
            throw Rejection.invalid("exchanged id_token: sub differs from the client's token")
        }
    }
}
