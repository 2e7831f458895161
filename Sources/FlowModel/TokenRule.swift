/// One row of a flow's `## Token rules` table: a requirement on a token the backend receives,
/// and the family of checker cases that proves the backend enforces it.
public struct TokenRule: Hashable, Sendable, Codable {
    /// The rule id as written in the first column (`signature`, `audience`…).
    public var id: String
    /// The rule family, nil when the id is not a known rule (lint reports FS501).
    public var kind: TokenRuleKind?
    /// The token the rule is about (`id_token`, `notification`, `client_secret`…).
    public var token: String
    /// The step that submits the token to the backend (`@ 6`), inherited from the first row
    /// when a row does not name one.
    public var step: Int?
    /// The human requirement (third column), kept verbatim for the site.
    public var requirement: String
    public var location: SourceLocation
    /// Where the step reference `@ N` was written, when it was.
    public var stepLocation: SourceLocation?

    public init(
        id: String,
        kind: TokenRuleKind?,
        token: String,
        step: Int?,
        requirement: String,
        location: SourceLocation,
        stepLocation: SourceLocation? = nil
    ) {
        self.id = id
        self.kind = kind
        self.token = token
        self.step = step
        self.requirement = requirement
        self.location = location
        self.stepLocation = stepLocation
    }

    /// The cases of this rule's family, in catalogue order, whatever the provider.
    public var cases: [TokenCase] {
        guard let kind else { return [] }
        return Self.casesByKind[kind] ?? []
    }

    /// The catalogue's cases of each family, in catalogue order (filtered once, not per rule
    /// and page: the catalogue's copies cost 60 000 instructions a rule).
    private static let casesByKind: [TokenRuleKind: [TokenCase]] = Dictionary(uniqueKeysWithValues: TokenRuleKind.allCases.map { kind in
        (kind, TokenCase.catalogue.filter { $0.families.contains(kind) })
    })

    /// The cases this rule runs for a flow whose provider is `profile` (nil: unknown, all
    /// cases) and whose nonce reaches the claim as `nonce` says.
    public func cases(for profile: ProviderProfile?, nonce: NonceTransform) -> [TokenCase] {
        guard let profile else { return cases }
        return cases.filter { $0.applies(to: profile, nonce: nonce) }
    }
}

/// Known rule ids. Each maps to a family of cases in `TokenCase.catalogue`
/// (see docs/token-cases.md, from the design's token-cases.md).
public enum TokenRuleKind: String, Hashable, Sendable, Codable, CaseIterable {
    case signature
    case algorithm
    case keyID = "key-id"
    case issuer
    case audience
    case expiry
    case issuedAt = "issued-at"
    case notBefore = "not-before"
    case subject
    case nonce
    case claims
    case exchange
    case notifications
    case revocation
}

/// What a backend must do with a case's token.
public enum CaseExpectation: String, Hashable, Sendable, Codable {
    /// 2xx, and what it returned works.
    case accept
    /// 4xx, nothing created (proved by trying to use it), never 5xx.
    case reject
    /// Reported, never fails the run (e.g. `iat` a week ago).
    case informational
}

/// One case of the token suite: a fresh sign-in with one token mutation (or a positive variant).
public struct TokenCase: Hashable, Sendable, Codable, Identifiable {
    /// Case id from token-cases.md (`P1`, `S4`, `C12`…).
    public var id: String
    public var title: String
    public var families: [TokenRuleKind]
    public var expectation: CaseExpectation
    /// OpenID conformance suite test id, when the case mirrors one.
    public var conformanceID: String?

    public init(id: String, title: String, families: [TokenRuleKind], expectation: CaseExpectation, conformanceID: String? = nil) {
        self.id = id
        self.title = title
        self.families = families
        self.expectation = expectation
        self.conformanceID = conformanceID
    }

    public static func named(_ id: String) -> TokenCase? { position(of: id).map { catalogue[$0] } }

    /// Where the case `id` is in `catalogue` (its order is the reports' order).
    public static func position(of id: String) -> Int? { positions[id] }

    private static let positions: [String: Int] = Dictionary(
        catalogue.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })

    /// Whether the case means something for this provider and nonce transform: P2 needs
    /// string-boolean claims, P7 `nonce_supported`, P9 a second issuer, C14 a hashed nonce,
    /// C17/N1/N2 notifications, C18 `azp`, R1 a revocation endpoint.
    public func applies(to profile: ProviderProfile, nonce: NonceTransform) -> Bool {
        switch id {
        case "P2": profile.claims.contains { $0.type == .stringBoolean }
        case "P7": profile.claim("nonce_supported") != nil
        case "P9": profile.issuers.count > 1
        case "C14": nonce == .sha256
        case "C17", "N1", "N2": profile.notifications
        case "C18": profile.claim("azp") != nil
        case "R1": profile.endpoints.revocation != nil
        default: true
        }
    }

    /// The catalogue, in the order cases are run and reported.
    public static let catalogue: [TokenCase] = [
        // Positive: must accept. P1 belongs to every family: a backend that rejects everything fails.
        TokenCase(id: "P1", title: "valid RS256 token, all claims right", families: TokenRuleKind.allCases, expectation: .accept),
        TokenCase(id: "P2", title: "email_verified / is_private_email as strings and as booleans", families: [.claims], expectation: .accept),
        TokenCase(id: "P3", title: "aud as a one-element array", families: [.audience], expectation: .accept),
        TokenCase(id: "P4", title: "JWKS of 3 keys, token signed by the 2nd/3rd (select by kid)", families: [.signature], expectation: .accept),
        TokenCase(id: "P5", title: "key rotation: new kid served only after a JWKS refetch", families: [.signature], expectation: .accept),
        TokenCase(id: "P6", title: "JWKS also holds unusable keys (oct, RSA use:enc)", families: [.signature], expectation: .accept),
        TokenCase(id: "P7", title: "nonce requested, token has none and nonce_supported:false", families: [.nonce], expectation: .accept),
        TokenCase(id: "P8", title: "unknown extra claims (Apple: real_user_status 3)", families: [.claims], expectation: .accept),
        TokenCase(id: "P9", title: "iss is another issuer the provider lists (Google's accounts.google.com)", families: [.issuer], expectation: .accept),
        // Signature and header: must reject.
        TokenCase(id: "S1", title: "signature bytes flipped; signature stripped", families: [.signature], expectation: .reject, conformanceID: "rp-id_token-bad-sig-rs256"),
        TokenCase(id: "S2", title: "genuine kid, signed by another RSA key", families: [.signature], expectation: .reject),
        TokenCase(id: "S3", title: "alg none/None/NONE, empty or original signature", families: [.algorithm], expectation: .reject, conformanceID: "rp-id_token-sig-none"),
        TokenCase(id: "S4", title: "alg HS256 keyed with the RSA public key (PEM, DER, JWK)", families: [.algorithm], expectation: .reject),
        TokenCase(id: "S5", title: "header alg RS512/PS256 over a valid RS256 signature", families: [.algorithm], expectation: .reject),
        TokenCase(id: "S6", title: "alg ES256 with r = s = 0 (CVE-2022-21449)", families: [.algorithm], expectation: .reject),
        TokenCase(id: "S7", title: "embedded jwk header with an attacker key (CVE-2018-0114)", families: [.keyID], expectation: .reject),
        TokenCase(id: "S8", title: "jku/x5u pointing at a checker URL, never fetched", families: [.keyID], expectation: .reject),
        TokenCase(id: "S9", title: "hostile kid values (path, SQL quote, 10 kB, non-ASCII)", families: [.keyID], expectation: .reject),
        TokenCase(id: "S10", title: "kid not in the JWKS even after refetch", families: [.keyID], expectation: .reject),
        TokenCase(id: "S11", title: "crit: [\"x-unknown\"]", families: [.algorithm], expectation: .reject),
        TokenCase(id: "S12", title: "malformed compact form (segments, +/, non-JSON)", families: [.signature], expectation: .reject),
        TokenCase(id: "S13", title: "= padding on one segment alone (header, payload or signature), signed as sent", families: [.signature], expectation: .reject),
        // Claims: must reject.
        TokenCase(id: "C1", title: "iss with a suffix, trailing /, http://, missing", families: [.issuer], expectation: .reject),
        TokenCase(id: "C2", title: "aud another app's id; aud missing", families: [.audience], expectation: .reject),
        TokenCase(id: "C3", title: "aud array with ours plus another", families: [.audience], expectation: .reject),
        TokenCase(id: "C5", title: "exp 6 minutes ago; exp missing", families: [.expiry], expectation: .reject),
        TokenCase(id: "C6", title: "exp as a string", families: [.expiry], expectation: .reject),
        TokenCase(id: "C7", title: "iat missing", families: [.issuedAt], expectation: .reject),
        TokenCase(id: "C8", title: "iat a week ago (warning level)", families: [.issuedAt], expectation: .informational),
        TokenCase(id: "C9", title: "iat an hour in the future", families: [.issuedAt], expectation: .reject),
        TokenCase(id: "C10", title: "nbf an hour in the future", families: [.notBefore], expectation: .reject),
        TokenCase(id: "C11", title: "sub missing, empty, numeric", families: [.subject], expectation: .reject),
        TokenCase(id: "C12", title: "nonce = expected + \"1\"", families: [.nonce], expectation: .reject, conformanceID: "rp-nonce-invalid"),
        TokenCase(id: "C13", title: "nonce sent, claim absent, nonce_supported:true", families: [.nonce], expectation: .reject),
        TokenCase(id: "C14", title: "client posts the hash itself as the raw nonce", families: [.nonce], expectation: .reject),
        TokenCase(id: "C15", title: "same id_token and nonce posted twice (replay)", families: [.nonce], expectation: .reject),
        TokenCase(id: "C16", title: "duplicate claim names (aud, exp, iss, sub, nonce), the right value first and last", families: [.audience, .expiry, .issuer, .subject, .nonce], expectation: .reject),
        TokenCase(id: "C17", title: "a notification JWT posted as id_token, and the reverse", families: [.claims], expectation: .reject),
        TokenCase(id: "C18", title: "azp names another client (OpenID Connect Core §3.1.3.7)", families: [.audience], expectation: .reject, conformanceID: "rp-id_token-aud"),
        TokenCase(id: "C19", title: "nonce absent, empty or null in the request while the token carries one", families: [.nonce], expectation: .reject),
        TokenCase(id: "C20", title: "iat as a numeric string", families: [.issuedAt], expectation: .reject),
        TokenCase(id: "C21", title: "nbf as a numeric string", families: [.notBefore], expectation: .reject),
        // Code exchange, observed at the mock /auth/token.
        TokenCase(id: "X1", title: "sub of the exchanged id_token differs from the client's token", families: [.exchange], expectation: .reject),
        TokenCase(id: "X2", title: "/auth/token answers invalid_grant or invalid_client", families: [.exchange], expectation: .reject),
        TokenCase(id: "X3", title: "exchanged id_token has wrong iss/aud/sub", families: [.exchange], expectation: .reject),
        // Revocation and notifications.
        TokenCase(id: "R1", title: "account deletion calls /auth/revoke with a valid client_secret", families: [.revocation], expectation: .accept),
        TokenCase(id: "N1", title: "valid notifications of every type (and a duplicate jti): 200, state updated, idempotent", families: [.notifications], expectation: .accept),
        TokenCase(id: "N2", title: "notification with bad signature, wrong aud/iss, expired: 4xx, no state change", families: [.notifications], expectation: .reject),
    ]
}
