import FlowModel
import Foundation
import JOSE

/// A named way a client's authentication breaks the provider's rules (Apple's ES256
/// `client_secret`, a shared secret, a `private_key_jwt` assertion). Recorded with every token
/// and revoke request so a check can say exactly what the backend got wrong.
public enum ClientSecretViolation: String, Sendable, Codable, Hashable, CaseIterable {
    case missing
    case malformed
    /// The method used is not one the provider's profile accepts.
    case methodNotAllowed = "method-not-allowed"
    /// More than one method in one request (RFC 6749 §2.3: MUST NOT).
    case severalMethods = "several-methods"
    /// The shared secret is not the registered one.
    case secretMismatch = "secret-mismatch"
    /// The registration has nothing to verify this method with (no secret, no key).
    case notRegisteredForMethod = "not-registered-for-method"
    /// `client_assertion_type` is not `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`.
    case assertionType = "assertion-type"
    /// A `private_key_jwt` assertion without `jti`.
    case jtiMissing = "jti-missing"
    /// A `private_key_jwt` assertion whose `jti` was seen before.
    case jtiReused = "jti-reused"
    /// The `client_id` form field differs from the client the credentials name.
    case clientIDMismatch = "client-id-mismatch"
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

/// What the provider saw of a client's authentication: the method, a JWT's decoded header and
/// claims (not secret without the signature), the secret itself elided, and every violation.
public struct ClientSecretReport: Sendable, Hashable, Codable {
    public var elided: String
    public var header: String?
    public var claims: String?
    public var violations: [ClientSecretViolation]
    /// The method the client used (`client_secret_post`…), nil when none could be told.
    public var method: String?

    public init(elided: String, header: String? = nil, claims: String? = nil, violations: [ClientSecretViolation], method: String? = nil) {
        self.elided = elided
        self.header = header
        self.claims = claims
        self.violations = violations
        self.method = method
    }

    public var isValid: Bool { violations.isEmpty }
}

/// Client authentication at the token and revocation endpoints, by the methods a profile
/// accepts. Tells the method from the request (HTTP Basic, `client_assertion`, a
/// `client_secret` field that is a JWT for Apple or a plain secret), then verifies it.
struct ClientAuthenticator {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    var profile: ProviderProfile
    var registrations: [String: ClientRegistration]
    /// Where the token endpoint is served and the issuer: the audiences a `private_key_jwt`
    /// assertion may name.
    var audiences: Set<String>
    var appleAudience: String
    var now: Int64

    struct Outcome {
        var clientID: String?
        var report: ClientSecretReport
    }

    func authenticate(fields: [(String, String)], authorization: String?, seenJTIs: Set<String>) -> Outcome {
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        let formClientID = field("client_id")
        var methods: [ClientAuthMethod] = []
        var basic: (String, String)?
        if let authorization, authorization.lowercased().hasPrefix("basic ") {
            methods.append(.clientSecretBasic)
            basic = Self.decodeBasic(String(authorization.dropFirst(6)))
        }
        if field("client_assertion") != nil || field("client_assertion_type") != nil { methods.append(.privateKeyJWT) }
        if let secret = field("client_secret") {
            let looksLikeJWT = secret.split(separator: ".", omittingEmptySubsequences: false).count == 3
            methods.append(profile.clientAuthentication.contains(.appleClientSecret) && (looksLikeJWT || !profile.clientAuthentication.contains(.clientSecretPost)) ? .appleClientSecret : .clientSecretPost)
        }
        guard let method = methods.first else {
            return Outcome(clientID: formClientID, report: ClientSecretReport(elided: "", violations: [.missing]))
        }
        var extra: [ClientSecretViolation] = []
        if methods.count > 1 { extra.append(.severalMethods) }
        if !profile.clientAuthentication.contains(method) { extra.append(.methodNotAllowed) }
        var outcome: Outcome
        switch method {
        case .clientSecretBasic:
            guard let (id, secret) = basic else {
                return Outcome(clientID: formClientID, report: ClientSecretReport(elided: "", violations: extra + [.malformed], method: method.rawValue))
            }
            outcome = sharedSecret(clientID: id, secret: secret, method: method)
            if let formClientID, formClientID != id { outcome.report.violations.append(.clientIDMismatch) }
        case .clientSecretPost:
            outcome = sharedSecret(clientID: formClientID, secret: field("client_secret") ?? "", method: method)
        case .privateKeyJWT:
            outcome = assertion(field("client_assertion"), type: field("client_assertion_type"), formClientID: formClientID, seenJTIs: seenJTIs)
        case .appleClientSecret:
            let registration = formClientID.flatMap { registrations[$0] }
            let key = registration?.publicKeyPEM.flatMap { try? ECKey(pem: $0) }
            var report = ClientSecretVerifier.verify(field("client_secret"), formClientID: formClientID, registration: registration, publicKey: key, audience: appleAudience, now: now)
            report.method = method.rawValue
            outcome = Outcome(clientID: formClientID, report: report)
        }
        outcome.report.violations = extra + outcome.report.violations
        return outcome
    }

    private func sharedSecret(clientID: String?, secret: String, method: ClientAuthMethod) -> Outcome {
        let elided = Secret.elide(secret)
        guard let clientID, let registration = registrations[clientID] else {
            return Outcome(clientID: clientID, report: ClientSecretReport(elided: elided, violations: [.unknownClient], method: method.rawValue))
        }
        guard let expected = registration.clientSecret else {
            return Outcome(clientID: clientID, report: ClientSecretReport(elided: elided, violations: [.notRegisteredForMethod], method: method.rawValue))
        }
        let violations: [ClientSecretViolation] = secret.isEmpty ? [.missing] : (Self.constantTimeEqual(secret, expected) ? [] : [.secretMismatch])
        return Outcome(clientID: clientID, report: ClientSecretReport(elided: elided, violations: violations, method: method.rawValue))
    }

    private func assertion(_ token: String?, type: String?, formClientID: String?, seenJTIs: Set<String>) -> Outcome {
        let method = ClientAuthMethod.privateKeyJWT.rawValue
        var violations: [ClientSecretViolation] = []
        if type != Self.assertionType { violations.append(.assertionType) }
        guard let token, !token.isEmpty else {
            return Outcome(clientID: formClientID, report: ClientSecretReport(elided: "", violations: violations + [.missing], method: method))
        }
        let elided = Secret.elide(token)
        guard let parsed = try? JWS.parse(token), let claims = parsed.payload else {
            return Outcome(clientID: formClientID, report: ClientSecretReport(elided: elided, violations: violations + [.malformed], method: method))
        }
        let clientID = claims.string("sub") ?? formClientID
        let report = { (list: [ClientSecretViolation]) in
            ClientSecretReport(elided: elided, header: parsed.header.jsonString(), claims: claims.jsonString(), violations: list, method: method)
        }
        guard let clientID, let registration = registrations[clientID] else { return Outcome(clientID: clientID, report: report(violations + [.unknownClient])) }
        guard let pem = registration.publicKeyPEM else { return Outcome(clientID: clientID, report: report(violations + [.notRegisteredForMethod])) }
        let alg = parsed.header.string("alg") ?? ""
        let key: JWSVerificationKey?
        switch alg {
        case "RS256": key = (try? RSAKey(pem: pem)).map { .rsa($0) }
        case "ES256": key = (try? ECKey(pem: pem)).map { .ec($0) }
        default: key = nil
        }
        if let expectedKID = registration.keyID, parsed.header.string("kid") != expectedKID { violations.append(.kidMismatch) }
        if let key, let algorithm = JWSAlgorithm(rawValue: alg) {
            if !parsed.verifySignature(algorithm: algorithm, key: key) { violations.append(.signatureInvalid) }
        } else {
            violations.append(.signatureInvalid)
        }
        if claims.string("iss") != clientID { violations.append(.issMismatch) }
        if claims.string("sub") != clientID { violations.append(.subMismatch) }
        if let formClientID, formClientID != clientID { violations.append(.clientIDMismatch) }
        let audience = claims["aud"]
        let named = audience?.stringValue.map { [$0] } ?? audience?.arrayValue?.compactMap(\.stringValue) ?? []
        if !named.contains(where: audiences.contains) { violations.append(.audMismatch) }
        if let exp = claims["exp"]?.doubleValue {
            if exp <= Double(now) { violations.append(.expNotAfterNow) }
        } else {
            violations.append(.expMissing)
        }
        if let jti = claims.string("jti"), !jti.isEmpty {
            if seenJTIs.contains(jti) { violations.append(.jtiReused) }
        } else {
            violations.append(.jtiMissing)
        }
        return Outcome(clientID: clientID, report: report(violations))
    }

    static func decodeBasic(_ encoded: String) -> (String, String)? {
        guard let data = Data(base64Encoded: encoded.trimmingCharacters(in: .whitespaces)), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        // RFC 6749 §2.3.1: both parts are form-urlencoded before joining.
        return (FormEncoding.unescape(String(text[..<colon])), FormEncoding.unescape(String(text[text.index(after: colon)...])))
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// How the embedded mock backend authenticates at the provider: one method of the profile and
/// the material it needs. Builds the form fields and headers of a token or revoke request.
public struct ClientCredentials: Sendable {
    public var method: ClientAuthMethod
    public var clientID: String
    var secret: String?
    var apple: ClientSecretSigner?
    var assertionKey: ECKey?
    var assertionKeyID: String?

    public static func sharedSecret(_ method: ClientAuthMethod, clientID: String, secret: String) -> ClientCredentials {
        ClientCredentials(method: method, clientID: clientID, secret: secret)
    }

    public static func apple(clientID: String, signer: ClientSecretSigner) -> ClientCredentials {
        ClientCredentials(method: .appleClientSecret, clientID: clientID, apple: signer)
    }

    public static func privateKeyJWT(clientID: String, key: ECKey, keyID: String?) -> ClientCredentials {
        ClientCredentials(method: .privateKeyJWT, clientID: clientID, assertionKey: key, assertionKeyID: keyID)
    }

    /// Fields and headers to add to a request to `endpointURL`; `der` signs Apple's
    /// `client_secret` with a DER signature (the `client-secret-der` defect).
    func authentication(endpointURL: String, now: Int64, jti: String, der: Bool) -> (fields: [(String, String)], headers: [HeaderField]) {
        switch method {
        case .clientSecretBasic:
            let encode = { (text: String) in FormEncoding.escape(text) }
            let token = Data((encode(clientID) + ":" + encode(secret ?? "")).utf8).base64EncodedString()
            return ([], [HeaderField(name: "Authorization", value: "Basic " + token)])
        case .clientSecretPost:
            return ([("client_id", clientID), ("client_secret", secret ?? "")], [])
        case .appleClientSecret:
            let jwt = (try? apple?.sign(clientID: clientID, now: now, der: der)) ?? ""
            return ([("client_id", clientID), ("client_secret", jwt)], [])
        case .privateKeyJWT:
            var header: JSONObject = ["alg": "ES256"]
            if let assertionKeyID { header.append("kid", .string(assertionKeyID)) }
            let claims: JSONObject = [
                "iss": .string(clientID), "sub": .string(clientID), "aud": .string(endpointURL), "jti": .string(jti),
                "iat": .int(now), "exp": .int(now + 300),
            ]
            let input = JWS.signingInput(header: header.jsonBytes(), payload: claims.jsonBytes())
            let signature = (try? assertionKey?.sign(input)) ?? []
            let jwt = JWS.compact(header: header.jsonBytes(), payload: claims.jsonBytes(), signature: signature)
            return ([("client_id", clientID), ("client_assertion_type", ClientAuthenticator.assertionType), ("client_assertion", jwt)], [])
        }
    }
}

/// Verifies `client_secret` JWTs exactly as token-cases.md says Apple does.
struct ClientSecretVerifier {
    /// Seconds of clock skew tolerated for `iat`.
    static let iatLeeway: Int64 = 5

    static func verify(_ secret: String?, formClientID: String?, registration: ClientRegistration?, publicKey: ECKey?, audience: String, now: Int64) -> ClientSecretReport {
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
        if header.string("kid") != registration.keyID || registration.keyID == nil { violations.append(.kidMismatch) }
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
        if claims.string("iss") != registration.teamID || registration.teamID == nil { violations.append(.issMismatch) }
        if claims.string("sub") == nil || claims.string("sub") != formClientID { violations.append(.subMismatch) }
        if claims.string("aud") != audience { violations.append(.audMismatch) }
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
