import FlowModel

/// Why `JWTVerifier` refused a token. Each case names one check, so the mock
/// backend can answer precisely and tests can assert which rule fired.
public enum JWTVerificationError: Error, Equatable, CustomStringConvertible {
    case malformed(JWSError)
    /// Header `alg` missing or not a string.
    case missingAlgorithm
    /// `alg` is `none` in any spelling, or `none` was asked for.
    case unsecuredAlgorithm
    /// `alg` is not exactly the expected value.
    case algorithmMismatch(expected: String, found: String)
    /// `crit` lists an extension this verifier does not understand, or is malformed.
    case unsupportedCritical([String])
    /// A header that would let the token choose its own key (`jwk`, `jku`, `x5u`, `x5c`).
    case forbiddenHeader(String)
    case missingKeyID
    /// No usable key in the JWKS has this `kid` (refetch the JWKS once, then fail).
    case unknownKeyID(String)
    /// More than one usable key has this `kid`.
    case ambiguousKeyID(String)
    /// The selected RSA key is shorter than allowed.
    case keyTooSmall(bits: Int)
    case badSignature
    /// The payload is not a strictly parsable JSON object (e.g. duplicate claims).
    case payloadNotJSONObject(JSONError?)

    public var description: String {
        switch self {
        case .malformed(let error): "malformed token: \(error)"
        case .missingAlgorithm: "header has no string \"alg\""
        case .unsecuredAlgorithm: "unsecured (\"none\") tokens are never accepted"
        case .algorithmMismatch(let expected, let found): "alg is \"\(found)\", expected \"\(expected)\""
        case .unsupportedCritical(let names): "unsupported critical header(s): \(names.joined(separator: ", "))"
        case .forbiddenHeader(let name): "header \"\(name)\" is not accepted (keys come from the JWKS only)"
        case .missingKeyID: "header has no string \"kid\""
        case .unknownKeyID: "no usable key in the JWKS has the token's kid"
        case .ambiguousKeyID: "several keys in the JWKS share the token's kid"
        case .keyTooSmall(let bits): "RSA key of \(bits) bits is too small"
        case .badSignature: "signature does not verify"
        case .payloadNotJSONObject(let error): "payload is not a JSON object" + (error.map { ": \($0)" } ?? "")
        }
    }
}

/// A token whose header and signature passed. Claims (`iss`, `aud`, `exp`…) are NOT
/// checked here: that is the caller's policy.
public struct VerifiedJWT: Sendable, Equatable {
    public var parsed: ParsedJWS
    public var header: JSONObject { parsed.header }
    public var claims: JSONObject
    /// The JWKS entry that verified the signature.
    public var key: JWK
}

/// Strict header and signature verification against a JWKS, closing the holes
/// listed in token-cases.md (S3–S12): `alg` must equal the expected one exactly
/// (never `none`), unknown `crit` is fatal, embedded/remote keys are refused, the key
/// is chosen by `kid` only (no fallback to another key), and JWKS entries that cannot
/// serve this algorithm (`kty` mismatch, `use` other than `sig`, other `alg`,
/// unreadable) are skipped instead of failing the whole set.
public struct JWTVerifier: Sendable {
    public var expectedAlgorithm: JWSAlgorithm
    /// `crit` extension names this caller handles itself.
    public var understoodCriticalHeaders: Set<String>
    public var minimumRSABits: Int

    /// Headers that let a token pick its own key.
    public static let forbiddenHeaders = ["jwk", "jku", "x5u", "x5c"]

    public init(expectedAlgorithm: JWSAlgorithm = .RS256, understoodCriticalHeaders: Set<String> = [], minimumRSABits: Int = 2048) {
        self.expectedAlgorithm = expectedAlgorithm
        self.understoodCriticalHeaders = understoodCriticalHeaders
        self.minimumRSABits = minimumRSABits
    }

    public static func verify(_ compact: String, jwks: JWKS, expectedAlg: JWSAlgorithm = .RS256) -> Result<VerifiedJWT, JWTVerificationError> {
        JWTVerifier(expectedAlgorithm: expectedAlg).verify(compact, jwks: jwks)
    }

    public func verify(_ compact: String, jwks: JWKS) -> Result<VerifiedJWT, JWTVerificationError> {
        Result { () throws(JWTVerificationError) in try verifyOrThrow(compact, jwks: jwks) }
    }

    public func verifyOrThrow(_ compact: String, jwks: JWKS) throws(JWTVerificationError) -> VerifiedJWT {
        let parsed: ParsedJWS
        do { parsed = try JWS.parse(compact) } catch { throw .malformed(error) }
        let header = parsed.header

        guard let alg = header.string("alg") else { throw .missingAlgorithm }
        if alg.lowercased() == "none" || expectedAlgorithm == .none { throw .unsecuredAlgorithm }
        guard alg == expectedAlgorithm.rawValue else { throw .algorithmMismatch(expected: expectedAlgorithm.rawValue, found: alg) }

        for name in Self.forbiddenHeaders where header.contains(name) { throw .forbiddenHeader(name) }
        if let crit = header["crit"] { try checkCritical(crit, header: header) }

        guard let kid = header.string("kid") else { throw .missingKeyID }
        let candidates = jwks.keys(withID: kid).compactMap(usableKey)
        guard !candidates.isEmpty else { throw .unknownKeyID(kid) }
        guard candidates.count == 1, let (jwk, key) = candidates.first else { throw .ambiguousKeyID(kid) }
        if case .rsa(let rsa) = key, rsa.bits < minimumRSABits { throw .keyTooSmall(bits: rsa.bits) }

        guard parsed.verifySignature(algorithm: expectedAlgorithm, key: key) else { throw .badSignature }
        guard let claims = parsed.payload else { throw .payloadNotJSONObject(parsed.payloadError) }
        return VerifiedJWT(parsed: parsed, claims: claims, key: jwk)
    }

    /// RFC 7515 §4.1.11: a non-empty array of strings, no registered names, each
    /// present in the header and understood.
    private func checkCritical(_ crit: JSONNode, header: JSONObject) throws(JWTVerificationError) {
        let registered: Set<String> = ["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit"]
        guard let elements = crit.arrayValue, !elements.isEmpty else { throw .unsupportedCritical(["<malformed crit>"]) }
        let names = elements.compactMap(\.stringValue)
        guard names.count == elements.count, Set(names).count == names.count else { throw .unsupportedCritical(["<malformed crit>"]) }
        let bad = names.filter { registered.contains($0) || !understoodCriticalHeaders.contains($0) || !header.contains($0) }
        if !bad.isEmpty { throw .unsupportedCritical(bad) }
    }

    private func usableKey(_ jwk: JWK) -> (JWK, JWSVerificationKey)? {
        guard jwk.kty == expectedAlgorithm.keyType else { return nil }
        if let use = jwk.use, use != "sig" { return nil }
        if let alg = jwk.alg, alg != expectedAlgorithm.rawValue { return nil }
        switch expectedAlgorithm.keyType {
        case "RSA": return (try? RSAKey(jwk: jwk.publicOnly)).map { (jwk, .rsa($0)) }
        case "EC": return (try? ECKey(jwk: jwk.publicOnly)).map { (jwk, .ec($0)) }
        case "oct": return jwk.k.flatMap(Base64URL.decode).map { (jwk, .hmac($0)) }
        default: return nil
        }
    }
}
