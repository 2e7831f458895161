/// JWS `alg` values this package can produce (RFC 7518 §3.1). `none` exists so the
/// checker can mint unsecured tokens; no verifier here ever accepts it.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case RS256, RS384, RS512, PS256, PS384, PS512, ES256, HS256
    case none

    public var isRSA: Bool { [.RS256, .RS384, .RS512, .PS256, .PS384, .PS512].contains(self) }
    public var isPSS: Bool { [.PS256, .PS384, .PS512].contains(self) }
    /// JWK `kty` a key must have for this algorithm; nil for `none`.
    public var keyType: String? {
        switch self {
        case .ES256: "EC"
        case .HS256: "oct"
        case .none: nil
        default: "RSA"
        }
    }
}
