import FlowModel
/// One mutation of a token the provider issues: a variant of a case in token-cases.md
/// (`S3` index 1 = `alg:"None"` with an empty signature). `.none` is the honest token (P1).
///
/// Every variant is minted byte-exact by the provider (`signIn`, `mintNotification`), never by
/// a JWT library. X1–X3 are not token forgeries: see `TokenEndpointOverride`.
public enum TokenForgery: Hashable, Sendable, Codable, CustomStringConvertible {
    case none
    case variant(caseID: String, index: Int)

    public var caseID: String? {
        if case .variant(let caseID, _) = self { return caseID }
        return nil
    }

    public var index: Int? {
        if case .variant(_, let index) = self { return index }
        return nil
    }

    public var description: String {
        switch self {
        case .none: "P1"
        case .variant(let caseID, let index): "\(caseID)/\(index)"
        }
    }

    /// The artefact the case is about (see `canApply(to:)` for where else it can be minted).
    public var target: ForgeryTarget {
        switch self {
        case .none: .idToken
        case .variant(let caseID, let index):
            if caseID == "N2" || (caseID == "C17" && index == 1) { .notification } else { .idToken }
        }
    }

    /// Whether `mintNotification` (target `.notification`) or `signIn` (`.idToken`) can carry
    /// this variant. Header, signature and claim mutations (P2–P6, P8, S1–S12, C1–C11, C16)
    /// apply to both; nonce and replay cases (P7, C12–C15) only to ID tokens; N2 only to
    /// notifications; C17 index 0 to ID tokens and index 1 to notifications.
    public func canApply(to target: ForgeryTarget) -> Bool {
        guard case .variant(let caseID, let index) = self else { return true }
        switch caseID {
        case "N2": return target == .notification
        case "C17": return target == (index == 0 ? .idToken : .notification)
        case "P7", "P9", "C12", "C13", "C14", "C15", "C18", "C19": return target == .idToken
        case "C16": return target == .idToken || Self.duplicatedClaims[index / 2].claim != "nonce"
        default: return true
        }
    }

    /// Whether minting this variant needs the attacker's RSA key (generated on first need).
    public var needsAttackerKey: Bool {
        guard case .variant(let caseID, let index) = self else { return false }
        switch caseID {
        case "S2", "S7", "S8", "P6": return true
        case "N2": return index == 1
        default: return false
        }
    }

    /// The variants of a case for a provider profile and a flow's nonce transform: empty when
    /// the case does not apply (P2 without string-booleans, P7 without `nonce_supported`, P9
    /// with one issuer, C14 on a verbatim nonce, C17 without notifications, C18 without `azp`).
    /// Descriptions name the profile's own claims and issuers. With `rule`, a case that spans
    /// several families (C16) keeps the variants about that family's claim.
    public static func variants(for caseID: String, profile: ProviderProfile, nonce: NonceTransform, rule: TokenRuleKind? = nil) -> [(forgery: TokenForgery, description: String)] {
        func numbered(_ texts: [String]) -> [(forgery: TokenForgery, description: String)] {
            texts.enumerated().map { (.variant(caseID: caseID, index: $0.offset), $0.element) }
        }
        if let tokenCase = TokenCase.named(caseID), !tokenCase.applies(to: profile, nonce: nonce) { return [] }
        switch caseID {
        case "P2":
            let names = profile.claims.filter { $0.type == .stringBoolean }.map(\.name)
            guard !names.isEmpty else { return [] }
            let list = names.joined(separator: " / ")
            return numbered(["\(list) as the strings \"true\"/\"false\"", "\(list) as booleans"])
        case "P7":
            return profile.claim("nonce_supported") == nil ? [] : variants(for: caseID)
        case "P8":
            return numbered(["unknown extra claims" + (profile.claim("real_user_status") != nil ? " and real_user_status 3" : "")])
        case "P9":
            return numbered(profile.issuers.dropFirst().map { "iss \($0), another issuer the provider uses" })
        case "C13":
            return numbered(["nonce sent, claim absent" + (profile.claim("nonce_supported") != nil ? ", nonce_supported:true" : "")])
        case "C14":
            return nonce == .sha256 ? variants(for: caseID) : []
        case "C17":
            return profile.notifications ? variants(for: caseID) : []
        case "C18":
            return profile.claim("azp") == nil ? [] : variants(for: caseID)
        case "C16":
            guard let rule else { return variants(for: caseID) }
            return variants(for: caseID).filter { Self.duplicatedClaims[$0.forgery.index! / 2].family == rule }
        case "N2":
            guard profile.notifications else { return [] }
            return numbered(variants(for: caseID).map(\.description).map { $0.replacingOccurrences(of: "iss is not Apple", with: "iss is not the provider's") })
        default:
            return variants(for: caseID)
        }
    }

    /// Human description of this variant, nil when it is not in the catalogue.
    public var variantDescription: String? {
        switch self {
        case .none: "baseline: valid RS256 token, all claims right"
        case .variant(let caseID, let index):
            if let list = Self.catalogue[caseID], list.indices.contains(index) { list[index] } else { nil }
        }
    }

    /// Every variant of a case, in order, with a description for reports. Empty for cases that
    /// are not token mutations (X1–X3: `TokenEndpointOverride.variants(for:)`; N1, R1: the
    /// checker drives them with honest tokens). `P1` gives the honest token.
    public static func variants(for caseID: String) -> [(forgery: TokenForgery, description: String)] {
        if caseID == "P1" { return [(.none, TokenForgery.none.variantDescription!)] }
        guard let list = catalogue[caseID] else { return [] }
        return list.enumerated().map { (.variant(caseID: caseID, index: $0.offset), $0.element) }
    }

    /// Case id → descriptions of its variants (index = position).
    public static let catalogue: [String: [String]] = [
        "P2": ["email_verified / is_private_email as the strings \"true\"/\"false\"", "email_verified / is_private_email as booleans"],
        "P3": ["aud as a one-element array"],
        "P4": ["signed by the 2nd key of a 3-key JWKS", "signed by the 3rd key of a 3-key JWKS"],
        "P5": ["key rotation: signed by a new key whose kid appears only in a re-fetched JWKS"],
        "P6": ["JWKS re-served with an oct key and an RSA use:enc key before a new signing key"],
        "P7": ["nonce requested, token has no nonce and nonce_supported:false"],
        "P8": ["unknown extra claims and real_user_status 3"],
        "S1": ["signature bytes flipped", "signature stripped (h.p.)"],
        "S2": ["genuine kid, signed by another RSA key"],
        "S3": [
            "alg none, empty signature", "alg None, empty signature", "alg NONE, empty signature",
            "alg none, original signature", "alg None, original signature", "alg NONE, original signature",
        ],
        "S4": [
            "alg HS256 keyed with the RSA public key as PEM", "alg HS256 keyed with the RSA public key as DER",
            "alg HS256 keyed with the RSA public key's JWK JSON",
        ],
        "S5": ["header alg RS512 over a valid RS256 signature", "header alg PS256 over a valid RS256 signature"],
        "S6": ["alg ES256 with r = s = 0 (CVE-2022-21449)"],
        "S7": ["embedded jwk header with an attacker key (CVE-2018-0114)"],
        "S8": ["jku pointing at an attacker JWKS served by the checker", "x5u pointing at an attacker key served by the checker"],
        "S9": ["kid ../../dev/null", "kid with an SQL quote", "kid of 10 kB", "non-ASCII kid"],
        "S10": ["kid not in the JWKS even after a refetch, signature by the first JWKS key"],
        "S11": ["crit: [\"x-unknown\"]"],
        "S12": ["2 segments", "4 segments", "5-segment JWE", "signature in the +/ alphabet", "header is not JSON"],
        "S13": [
            "= padding on the header segment alone (signed over the padded text)",
            "= padding on the payload segment alone (signed over the padded text)",
            "== padding on the signature segment alone (the same signature, a different token text)",
        ],
        "C1": ["iss with a suffix", "iss with a trailing /", "iss over http://", "iss missing"],
        "C2": ["aud is another app's id", "aud missing"],
        "C3": ["aud array with ours plus another"],
        "C5": ["exp 6 minutes ago", "exp missing"],
        "C6": ["exp as a string"],
        "C7": ["iat missing"],
        "C8": ["iat a week ago"],
        "C9": ["iat an hour in the future"],
        "C10": ["nbf an hour in the future"],
        "C11": ["sub missing", "sub empty", "sub numeric"],
        "C12": ["nonce = expected + \"1\""],
        "C13": ["nonce sent, claim absent, nonce_supported:true"],
        "C14": ["client posts the hash itself as the raw nonce"],
        "C15": [
            "same id_token and nonce posted again with a fresh code for the same sign-in (only the backend's replay check can refuse it)",
            "the identical request posted again, same code too (the provider refuses the used code)",
        ],
        "C16": duplicatedClaims.flatMap { ["duplicate \($0.claim): the right value, then \($0.wrong)", "duplicate \($0.claim): \($0.wrong), then the right value"] },
        "C17": ["a notification JWT posted as id_token", "an ID token posted as a notification"],
        "C18": ["azp is another client's id (aud ours)"],
        "C19": ["nonce field absent from the request", "nonce field empty", "nonce field null"],
        "C20": ["iat as a numeric string (the right time, quoted)"],
        "C21": ["nbf as a numeric string (a past time, quoted)"],
        "N2": [
            "notification signature bytes flipped", "notification signed by another RSA key (genuine kid)",
            "notification aud is another app's id", "notification iss is not Apple", "notification expired",
            "notification with alg none",
        ],
    ]

    /// The claims C16 duplicates, two variants each (index / 2): the honest value first then a
    /// wrong one (index even), and the reverse (odd). A first-wins parser reads the right value
    /// of the even variant, a last-wins parser that of the odd one; a strict one refuses both.
    public static let duplicatedClaims: [(claim: String, family: TokenRuleKind, wrong: String)] = [
        ("aud", .audience, "another app's id"),
        ("exp", .expiry, "a time 6 minutes ago"),
        ("iss", .issuer, "the issuer with a suffix"),
        ("sub", .subject, "another user's sub"),
        ("nonce", .nonce, "the nonce + \"1\""),
    ]

    /// Hostile `kid` values of S9, by index.
    static let hostileKeyIDs: [String] = [
        "../../dev/null",
        "' OR '1'='1",
        String(repeating: "A", count: 10_240),
        "ключ-🔑-鍵",
    ]
}

/// What a forgery applies to.
public enum ForgeryTarget: String, Hashable, Sendable, Codable {
    /// The ID token returned by `signIn` (and posted by the client).
    case idToken = "id_token"
    /// The JWT returned by `mintNotification`.
    case notification
}

/// How `/auth/token` misbehaves for the exchange cases (X1–X3), until cleared.
public enum TokenEndpointOverride: Hashable, Sendable, Codable, CustomStringConvertible {
    /// X2: answer 400 `{"error": code}` (`invalid_grant`, `invalid_client`).
    case error(String)
    /// X1: the exchanged ID token is valid but about another user (different `sub`).
    case differentSubject
    /// X3: the exchanged ID token has a wrong claim.
    case wrongIssuer
    case wrongAudience
    case missingSubject

    public var description: String {
        switch self {
        case .error(let code): "token endpoint answers \(code)"
        case .differentSubject: "exchanged id_token has another user's sub"
        case .wrongIssuer: "exchanged id_token has a wrong iss"
        case .wrongAudience: "exchanged id_token has another app's aud"
        case .missingSubject: "exchanged id_token has no sub"
        }
    }

    /// The overrides that drive X1, X2 and X3; empty for other ids.
    public static func variants(for caseID: String) -> [(override: TokenEndpointOverride, description: String)] {
        let list: [TokenEndpointOverride]
        switch caseID {
        case "X1": list = [.differentSubject]
        case "X2": list = [.error("invalid_grant"), .error("invalid_client")]
        case "X3": list = [.wrongIssuer, .wrongAudience, .missingSubject]
        default: list = []
        }
        return list.map { ($0, $0.description) }
    }
}
