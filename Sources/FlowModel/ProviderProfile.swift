/// An identity provider the checker can play, as data: its issuers, paths, signing
/// algorithms, how clients authenticate, the claims an honest ID token carries and their types,
/// and its code rules. Built-in profiles (`apple`, `google`, `microsoft`, `oidc`) and a
/// project's own (`NAME.provider.yml` next to the specs) are read by `ProviderProfileParser`
/// (FlowParser); docs/providers.md documents the format.
public struct ProviderProfile: Hashable, Sendable, Codable {
    /// The name a spec's `provider:` uses (`google`).
    public var id: String
    /// Human name (`Google`), for the console and the site.
    public var name: String
    /// Valid `iss` values; the first is what honest tokens carry. May hold `{{variable}}`
    /// (a flow variable or a profile default) and `{{provider.url}}` (where the mock is served).
    public var issuers: [String]
    public var endpoints: Endpoints
    /// JWS algorithms ID tokens are signed with; the first is used. Only `RS256` is minted.
    public var signingAlgorithms: [String]
    /// How clients authenticate at the token (and revocation) endpoint, in preference order.
    public var clientAuthentication: [ClientAuthMethod]
    /// Claims an honest ID token carries besides `iss`, `aud`, `exp`, `iat`, `sub` and `nonce`,
    /// in the order they are written.
    public var claims: [ClaimSpec]
    /// How the nonce the client sent reaches the `nonce` claim when the flow does not say.
    public var nonce: NonceTransform
    /// Shape of the users' stable ids.
    public var subject: SubjectFormat
    /// Domain of the mock users' e-mail addresses (`privaterelay.appleid.com`, `gmail.com`).
    public var emailDomain: String
    /// Seconds an authorization code lives.
    public var codeLifetime: Int
    /// Whether a code can be exchanged only once.
    public var codeSingleUse: Bool
    /// Seconds an ID token lives (`exp - iat`).
    public var idTokenLifetime: Int
    /// Whether the provider sends server-to-server notifications (Apple's account events).
    public var notifications: Bool
    /// Values of `{{name}}` in issuers and paths when the flow does not declare the variable.
    public var defaults: [String: String]
    /// Where a project profile was read from (nil for built-ins).
    public var location: SourceLocation?

    public struct Endpoints: Hashable, Sendable, Codable {
        public var discovery: String
        public var authorization: String
        public var token: String
        public var jwks: String
        public var revocation: String?
        public var userinfo: String?

        public init(discovery: String, authorization: String, token: String, jwks: String, revocation: String? = nil, userinfo: String? = nil) {
            self.discovery = discovery
            self.authorization = authorization
            self.token = token
            self.jwks = jwks
            self.revocation = revocation
            self.userinfo = userinfo
        }
    }

    public init(
        id: String, name: String, issuers: [String], endpoints: Endpoints, signingAlgorithms: [String] = ["RS256"],
        clientAuthentication: [ClientAuthMethod], claims: [ClaimSpec] = [], nonce: NonceTransform = .verbatim,
        subject: SubjectFormat = .uuid, emailDomain: String = "example.com", codeLifetime: Int = 300, codeSingleUse: Bool = true,
        idTokenLifetime: Int = 3600, notifications: Bool = false, defaults: [String: String] = [:], location: SourceLocation? = nil
    ) {
        self.id = id
        self.name = name
        self.issuers = issuers
        self.endpoints = endpoints
        self.signingAlgorithms = signingAlgorithms
        self.clientAuthentication = clientAuthentication
        self.claims = claims
        self.nonce = nonce
        self.subject = subject
        self.emailDomain = emailDomain
        self.codeLifetime = codeLifetime
        self.codeSingleUse = codeSingleUse
        self.idTokenLifetime = idTokenLifetime
        self.notifications = notifications
        self.defaults = defaults
        self.location = location
    }

    public func claim(_ name: String) -> ClaimSpec? { claims.first { $0.name == name } }

    /// Claims every ID token has whatever the profile: written by the minter itself.
    public static let registeredClaims: Set<String> = ["iss", "aud", "exp", "iat", "sub", "nonce", "nbf"]

    /// Whether an honest ID token of this provider can carry `name`.
    public func issues(claim name: String) -> Bool {
        Self.registeredClaims.contains(name) || claim(name) != nil
    }

    /// The names of `{{…}}` placeholders in issuers and paths (besides `provider.url`).
    public var templateVariables: [String] {
        var names: [String] = []
        let texts = issuers + [endpoints.discovery, endpoints.authorization, endpoints.token, endpoints.jwks]
            + [endpoints.revocation, endpoints.userinfo].compactMap { $0 }
        for text in texts {
            for name in Placeholders.names(in: text) where name != "provider.url" && !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// This profile with every `{{variable}}` of its issuers and paths replaced by the flow's
    /// value (or the profile's default). `{{provider.url}}` stays until the mock is served.
    public func resolved(variables: [String: String]) -> ProviderProfile {
        var values = defaults
        for (name, value) in variables { values[name] = value }
        func fill(_ text: String) -> String { Placeholders.fill(text) { name in name == "provider.url" ? nil : values[name] } }
        var copy = self
        copy.issuers = issuers.map(fill)
        copy.endpoints = Endpoints(
            discovery: fill(endpoints.discovery), authorization: fill(endpoints.authorization), token: fill(endpoints.token),
            jwks: fill(endpoints.jwks), revocation: endpoints.revocation.map(fill), userinfo: endpoints.userinfo.map(fill))
        // The names are computed once: as a computed property read per entry, they were most
        // of a page's token-rules cost.
        let names = Set(templateVariables)
        copy.defaults = values.filter { name, _ in names.contains(name) }
        return copy
    }

    /// Issuers with `{{provider.url}}` replaced by where the mock is served.
    public func issuers(servedAt baseURL: String) -> [String] {
        issuers.map { Placeholders.fill($0) { $0 == "provider.url" ? baseURL : nil } }
    }
}

/// How a client proves who it is at the provider's token and revocation endpoints.
public enum ClientAuthMethod: String, Hashable, Sendable, Codable, CaseIterable {
    /// HTTP Basic with `client_id:client_secret` (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` form fields.
    case clientSecretPost = "client_secret_post"
    /// A JWT signed with the client's private key as `client_assertion` (RFC 7523).
    case privateKeyJWT = "private_key_jwt"
    /// Apple's `client_secret`: an ES256 JWT signed with the developer's key (key id, team id).
    case appleClientSecret = "apple_client_secret_jwt"

    /// Whether the method needs a shared secret (rather than a public key) registered.
    public var usesSharedSecret: Bool { self == .clientSecretBasic || self == .clientSecretPost }
}

/// How the nonce the client sent to the authorization endpoint reaches the ID token's claim,
/// and so what the backend must compare the posted nonce with.
public enum NonceTransform: String, Hashable, Sendable, Codable, CaseIterable {
    /// The claim is the nonce as sent (OpenID Connect; Apple's JS and web flows).
    case verbatim
    /// The client sends SHA-256 (lowercase hex) of a raw nonce it keeps, and posts the raw nonce
    /// to the backend (Apple's native iOS flow): the backend hashes what it was posted.
    case sha256
}

/// The shape of the mock users' `sub`.
public enum SubjectFormat: String, Hashable, Sendable, Codable, CaseIterable {
    /// `001091.22c0ca594d4243c58edf3553540380b5.2045`
    case apple
    /// 21 decimal digits (Google).
    case digits
    /// A UUID (Keycloak, most OIDC servers).
    case uuid
    /// 43 base64url characters (Microsoft's pairwise `sub`).
    case opaque
}

/// One claim an honest ID token carries.
public struct ClaimSpec: Hashable, Sendable, Codable {
    public var name: String
    public var type: ClaimType
    /// What the value is: `{{user.email}}`, `{{client_id}}`, `{{tenant_id}}`, `{{at_hash}}`… or
    /// literal text (converted to `type`).
    public var value: String
    public var when: ClaimPresence

    public init(name: String, type: ClaimType, value: String, when: ClaimPresence = .always) {
        self.name = name
        self.type = type
        self.value = value
        self.when = when
    }
}

/// The JSON type a claim is written with.
public enum ClaimType: String, Hashable, Sendable, Codable, CaseIterable {
    case string
    case boolean
    /// A boolean the provider sends as the string `"true"`/`"false"` or as a JSON boolean
    /// (Apple's `email_verified`): backends must take both (case P2).
    case stringBoolean = "string-boolean"
    case integer
    case number
}

/// When a claim is in the token.
public enum ClaimPresence: String, Hashable, Sendable, Codable, CaseIterable {
    case always
    /// Only when the client sent a nonce (Apple's `nonce_supported`).
    case nonce
    /// Only in a token issued alongside an authorization code (`c_hash`).
    case code
    /// Only in a token issued alongside an access token (`at_hash`, from the token endpoint).
    case accessToken = "access-token"
}

/// `{{name}}` placeholders: the one scanner for templates, profiles and the checker's
/// interpolation (names are trimmed of spaces).
public enum Placeholders {
    public static func names(in text: String) -> [String] {
        // Without the bytes of `{{` there is no `{{` Character pair either: most texts.
        guard text.utf8Contains("{{") else { return [] }
        if let pieces = asciiPieces(text) { return pieces.compactMap { $0.name } }
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
            names.append(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: " "))
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// Replaces each `{{name}}` for which `value` answers; others stay as written.
    public static func fill(_ text: String, _ value: (String) -> String?) -> String {
        guard text.utf8Contains("{{") else { return text }
        if let pieces = asciiPieces(text) {
            return pieces.map { piece in piece.name.flatMap(value) ?? piece.text }.joined()
        }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
            out += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: " ")
            out += value(name) ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// ASCII text cut into its literal runs and its `{{…}}` placeholders (`name`: the inside
    /// without its spaces), on bytes: in ASCII every byte is a Character (CR LF, the one pair,
    /// is neither `{` nor `}`), so the byte search is the Character search above. Nil for other
    /// text. (The Character search cost 4 000 instructions a placeholder.)
    static func asciiPieces(_ text: String) -> [(text: String, name: String?)]? {
        var text = text
        return text.withUTF8 { bytes -> [(text: String, name: String?)]? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            func string(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            func find(_ mark: UInt8, from start: Int) -> Int? {
                var index = start
                while index + 1 < bytes.count {
                    if bytes[index] == mark, bytes[index + 1] == mark { return index }
                    index += 1
                }
                return nil
            }
            var pieces: [(text: String, name: String?)] = []
            var start = 0
            while let open = find(UInt8(ascii: "{"), from: start), let close = find(UInt8(ascii: "}"), from: open + 2) {
                if open > start { pieces.append((string(start..<open), nil)) }
                var lower = open + 2, upper = close
                while lower < upper, bytes[lower] == 0x20 { lower += 1 }
                while upper > lower, bytes[upper - 1] == 0x20 { upper -= 1 }
                pieces.append((string(open..<(close + 2)), string(lower..<upper)))
                start = close + 2
            }
            if start < bytes.count { pieces.append((string(start..<bytes.count), nil)) }
            return pieces
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var view = self[...]
        while view.first == set { view = view.dropFirst() }
        while view.last == set { view = view.dropLast() }
        return String(view)
    }
}
