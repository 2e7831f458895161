import FlowModel
import Foundation
import JOSE

/// A named way a `client_secret` JWT breaks Apple's rules. Recorded with every token and revoke
/// request so a check can say exactly what the backend got wrong.
public enum ClientSecretViolation: String, Sendable, Codable, Hashable, CaseIterable {
    case missing
    case malformed
    /// `client_id` is not a registered client.
    case unknownClient = "unknown-client"
    case algNotES256 = "alg-not-es256"
    case kidMismatch = "kid-mismatch"
    /// A valid signature, but DER-encoded instead of raw 64-byte r‖s.
    case signatureDER = "signature-der"
    case signatureInvalid = "signature-invalid"
    case issMismatch = "iss-mismatch"
    case subMismatch = "sub-mismatch"
    case audMismatch = "aud-mismatch"
    case iatMissing = "iat-missing"
    case iatInFuture = "iat-in-future"
    case expMissing = "exp-missing"
    case expNotAfterNow = "exp-not-after-now"
    case expTooFar = "exp-too-far"
}

/// What the provider saw of a `client_secret`: decoded header and claims (not secret without
/// the signature), the secret itself elided, and every violation.
public struct ClientSecretReport: Sendable, Hashable, Codable {
    public var elided: String
    public var header: String?
    public var claims: String?
    public var violations: [ClientSecretViolation]

    public var isValid: Bool { violations.isEmpty }
}

/// Verifies `client_secret` JWTs exactly as token-cases.md says Apple does.
struct ClientSecretVerifier {
    /// Seconds of clock skew tolerated for `iat`.
    static let iatLeeway: Int64 = 5

    static func verify(_ secret: String?, formClientID: String?, registration: ClientRegistration?, publicKey: ECKey?, now: Int64) -> ClientSecretReport {
        guard let secret, !secret.isEmpty else {
            return ClientSecretReport(elided: "", header: nil, claims: nil, violations: [.missing])
        }
        var violations: [ClientSecretViolation] = []
        let parsed: ParsedJWS
        do {
            parsed = try JWS.parse(secret)
        } catch {
            let unknown: [ClientSecretViolation] = registration == nil ? [.unknownClient] : []
            return ClientSecretReport(elided: Secret.elide(secret), header: nil, claims: nil, violations: unknown + [.malformed])
        }
        let header = parsed.header
        let claims = parsed.payload
        let report = { (violations: [ClientSecretViolation]) in
            ClientSecretReport(
                elided: Secret.elide(secret), header: header.jsonString(), claims: claims?.jsonString(),
                violations: violations)
        }
        guard let registration, let publicKey else {
            return report([.unknownClient])
        }
        if header.string("alg") != "ES256" { violations.append(.algNotES256) }
        if header.string("kid") != registration.keyID { violations.append(.kidMismatch) }
        if parsed.signature.count == 64 {
            if !parsed.verifySignature(algorithm: .ES256, key: .ec(publicKey)) { violations.append(.signatureInvalid) }
        } else if let raw = try? ECDSASignature.rawFromDER(parsed.signature), raw.count == 64,
            publicKey.verify(raw, for: parsed.signingInput)
        {
            violations.append(.signatureDER)
        } else {
            violations.append(.signatureInvalid)
        }
        guard let claims else {
            violations.append(.malformed)
            return report(violations)
        }
        if claims.string("iss") != registration.teamID { violations.append(.issMismatch) }
        if claims.string("sub") == nil || claims.string("sub") != formClientID { violations.append(.subMismatch) }
        if claims.string("aud") != FlowMocks.appleIssuer { violations.append(.audMismatch) }
        if let iat = claims["iat"]?.doubleValue {
            if Int64(iat.rounded(.down)) > now + iatLeeway { violations.append(.iatInFuture) }
        } else {
            violations.append(.iatMissing)
        }
        if let exp = claims["exp"]?.doubleValue {
            if exp <= Double(now) { violations.append(.expNotAfterNow) }
            if exp > Double(now + FlowMocks.maxClientSecretLifetime) { violations.append(.expTooFar) }
        } else {
            violations.append(.expMissing)
        }
        return report(violations)
    }
}

/// Signs `client_secret` JWTs the way a correct backend does (ES256, raw r‖s), or with the DER
/// encoding for the `client-secret-der` defect.
public struct ClientSecretSigner: Sendable {
    public var teamID: String
    public var keyID: String
    private let key: ECKey

    public init(teamID: String, keyID: String, privateKeyPEM: String) throws {
        self.teamID = teamID
        self.keyID = keyID
        self.key = try ECKey(pem: privateKeyPEM)
    }

    public func sign(clientID: String, now: Int64, lifetime: Int64 = 3600, der: Bool = false) throws -> String {
        let header: JSONObject = ["alg": "ES256", "kid": .string(keyID)]
        let claims: JSONObject = [
            "iss": .string(teamID), "iat": .int(now), "exp": .int(now + lifetime),
            "aud": .string(FlowMocks.appleIssuer), "sub": .string(clientID),
        ]
        let input = JWS.signingInput(header: header.jsonBytes(), payload: claims.jsonBytes())
        let signature = der ? try key.signDER(input) : try key.sign(input)
        return JWS.compact(header: header.jsonBytes(), payload: claims.jsonBytes(), signature: signature)
    }
}
