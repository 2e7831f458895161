import FlowModel
import Foundation
import JOSE

/// What the provider knows about a client (a web app's client id, an app's bundle id): what it
/// needs to authenticate the backend at its token and revocation endpoints, by whichever method
/// the profile accepts — a shared secret (`client_secret_basic`/`_post`), a public key
/// (`private_key_jwt`), or Apple's key id, team id and P-256 key (the ES256 `client_secret`).
/// For a real backend it comes from a registration file or flags; for the embedded mock it is
/// generated per run. The shared secret is never encoded, printed or logged whole.
public struct ClientRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The profile this registration is for (`google`); nil = any provider of the run.
    public var provider: String?
    /// Client id: `aud` of ID tokens; `sub` of Apple's `client_secret`.
    public var clientID: String
    /// Shared secret for `client_secret_basic` / `client_secret_post`.
    public var clientSecret: String?
    /// Apple: `iss` of `client_secret`.
    public var teamID: String?
    /// Apple: `kid` of `client_secret`; `private_key_jwt`: the expected `kid`, when given.
    public var keyID: String?
    /// Public key (SubjectPublicKeyInfo PEM) verifying Apple's `client_secret` (P-256) or a
    /// `private_key_jwt` assertion (RSA or EC).
    public var publicKeyPEM: String?
    /// Where web flows redirect after authorize; the code exchange must repeat it when set.
    public var redirectURI: String?

    public init(
        provider: String? = nil, clientID: String, clientSecret: String? = nil, teamID: String? = nil, keyID: String? = nil,
        publicKeyPEM: String? = nil, redirectURI: String? = nil
    ) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.teamID = teamID
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.redirectURI = redirectURI
    }

    /// Apple's registration: key id, team id and the P-256 public key.
    public init(clientID: String, teamID: String, keyID: String, publicKeyPEM: String, redirectURI: String? = nil) {
        self.init(provider: nil, clientID: clientID, teamID: teamID, keyID: keyID, publicKeyPEM: publicKeyPEM, redirectURI: redirectURI)
    }

    /// Whether this registration is for the provider `id`.
    public func applies(to id: String) -> Bool { provider == nil || provider == id }

    /// The registration without its secret value, for messages.
    public var description: String {
        var parts = ["client_id=\(clientID)"]
        if let provider { parts.append("provider=\(provider)") }
        if let clientSecret { parts.append("client_secret=\(Secret.elide(clientSecret))") }
        if let teamID { parts.append("team_id=\(teamID)") }
        if let keyID { parts.append("key_id=\(keyID)") }
        if publicKeyPEM != nil { parts.append("public key") }
        if let redirectURI { parts.append("redirect_uri=\(redirectURI)") }
        return parts.joined(separator: " ")
    }

    /// Why a registration file is unusable.
    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Reads a registration file: one JSON object or an array of them, each
    /// `{"provider"?, "client_id", "client_secret" | "client_secret_env" | "client_secret_file",
    /// "team_id"?, "key_id"?, "public_key_pem" | "public_key_file", "redirect_uri"?}`. Files are
    /// relative to `directory`; environment variables come from `environment`.
    public static func load(json: [UInt8], directory: String, environment: [String: String], source: String) throws(LoadError) -> [ClientRegistration] {
        let root: JSONNode
        do { root = try StrictJSON.parse(json) } catch { throw LoadError(description: "\(source): not valid JSON (\(error))") }
        let objects: [JSONObject]
        switch root {
        case .object(let object): objects = [object]
        case .array(let items):
            objects = items.compactMap(\.objectValue)
            if objects.count != items.count || objects.isEmpty { throw LoadError(description: "\(source): expected a registration object or a non-empty array of them") }
        default: throw LoadError(description: "\(source): expected a registration object or an array of them")
        }
        let known: Set<String> = [
            "provider", "client_id", "client_secret", "client_secret_env", "client_secret_file", "team_id", "key_id",
            "public_key_pem", "public_key_file", "redirect_uri",
        ]
        var result: [ClientRegistration] = []
        for (index, object) in objects.enumerated() {
            let at = objects.count > 1 ? "\(source) [\(index)]" : source
            for member in object.members where !known.contains(member.name) {
                throw LoadError(description: "\(at): unknown key \"\(member.name)\" (known: \(known.sorted().joined(separator: ", ")))")
            }
            func text(_ key: String) throws(LoadError) -> String? {
                guard let node = object[key] else { return nil }
                guard let value = node.stringValue, !value.isEmpty else { throw LoadError(description: "\(at): \"\(key)\" must be a non-empty string") }
                return value
            }
            func file(_ path: String, _ key: String) throws(LoadError) -> String {
                let full = path.hasPrefix("/") ? path : (directory.isEmpty ? path : directory + "/" + path)
                guard let data = FileManager.default.contents(atPath: full), let value = String(data: data, encoding: .utf8) else {
                    throw LoadError(description: "\(at): \"\(key)\": cannot read \(full)")
                }
                return value
            }
            guard let clientID = try text("client_id") else { throw LoadError(description: "\(at): \"client_id\" is required") }
            var secret = try text("client_secret")
            if let variable = try text("client_secret_env") {
                guard let value = environment[variable], !value.isEmpty else {
                    throw LoadError(description: "\(at): the environment variable \(variable) (client_secret_env) is not set")
                }
                secret = value
            }
            if let path = try text("client_secret_file") {
                secret = try file(path, "client_secret_file").trimmingCharacters(in: .whitespacesAndNewlines)
            }
            var pem = try text("public_key_pem")
            if let path = try text("public_key_file") { pem = try file(path, "public_key_file") }
            if let pem, !pem.contains("BEGIN PUBLIC KEY") {
                throw LoadError(description: "\(at): the public key must be a PEM public key (-----BEGIN PUBLIC KEY-----)")
            }
            if secret == nil, pem == nil {
                throw LoadError(description: "\(at): give a shared secret (client_secret_env, client_secret_file) or a public key (public_key_pem, public_key_file)")
            }
            result.append(ClientRegistration(
                provider: try text("provider"), clientID: clientID, clientSecret: secret, teamID: try text("team_id"),
                keyID: try text("key_id"), publicKeyPEM: pem, redirectURI: try text("redirect_uri")))
        }
        return result
    }
}

/// The person signing in at the mock provider.
public struct MockUser: Sendable, Hashable, Codable {
    /// Apple's stable id, e.g. `001091.22c0ca594d4243c58edf3553540380b5.2045`.
    public var sub: String
    public var email: String
    public var emailVerified: Bool
    /// A `…@privaterelay.appleid.com` address ("Hide My Email").
    public var isPrivateEmail: Bool
    /// 0 unsupported, 1 unknown, 2 likely real.
    public var realUserStatus: Int
    /// Only sent on first sign-in, in the `user` form field (never in the token).
    public var firstName: String?
    public var lastName: String?
    /// Microsoft's object id (a UUID), stable per user across apps.
    public var objectID: String

    public init(
        sub: String, email: String, emailVerified: Bool = true, isPrivateEmail: Bool = false,
        realUserStatus: Int = 2, firstName: String? = nil, lastName: String? = nil, objectID: String = "00000000-0000-0000-0000-000000000000"
    ) {
        self.sub = sub
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.realUserStatus = realUserStatus
        self.firstName = firstName
        self.lastName = lastName
        self.objectID = objectID
    }

    public var name: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }

    /// A realistic user of `profile`: its `sub` shape and e-mail domain.
    public static func random(using random: any RandomSource = SystemRandom(), profile: ProviderProfile) -> MockUser {
        var user = MockUser.random(using: random)
        switch profile.subject {
        case .apple: break
        case .digits: user.sub = random.string(length: 1, alphabet: "123456789") + random.string(length: 20, alphabet: "0123456789")
        case .uuid: user.sub = Self.uuid(random)
        case .opaque: user.sub = random.string(length: 43, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        }
        let local = user.email.split(separator: "@").first.map(String.init) ?? "user"
        user.email = "\(local)@\(profile.emailDomain)"
        user.isPrivateEmail = profile.emailDomain == "privaterelay.appleid.com"
        return user
    }

    static func uuid(_ random: any RandomSource) -> String {
        let hex = Hex.string(random.bytes(16))
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    /// A realistic user with an Apple-shaped `sub` and a private relay address.
    public static func random(using random: any RandomSource = SystemRandom()) -> MockUser {
        let hex = Hex.string(random.bytes(16))
        let prefix = random.string(length: 6, alphabet: "0123456789")
        let suffix = random.string(length: 4, alphabet: "0123456789")
        let local = random.string(length: 10, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
        return MockUser(
            sub: "\(prefix).\(hex).\(suffix)", email: "\(local)@privaterelay.appleid.com",
            emailVerified: true, isPrivateEmail: true, realUserStatus: 2,
            firstName: "Test", lastName: "User", objectID: uuid(random))
    }

    /// The `user` JSON Apple posts on first sign-in: `{"name":{…},"email":…}`.
    public var userJSON: String {
        var name = JSONObject()
        if let firstName { name.append("firstName", .string(firstName)) }
        if let lastName { name.append("lastName", .string(lastName)) }
        var object = JSONObject()
        if !name.isEmpty { object.append("name", .object(name)) }
        object.append("email", .string(email))
        return object.jsonString()
    }
}

/// What the person does at the provider's authorize step.
public enum AuthorizeOutcome: String, Sendable, Codable, Hashable, CaseIterable {
    /// Signs in and grants access: a code and an ID token are issued.
    case approved
    /// Cancels at the consent screen: `error=user_cancelled_authorize`, nothing issued.
    case denied
    /// Fails to authenticate (wrong password, 2FA): nothing issued, Apple shows the page again.
    case authenticationFailed = "authentication-failed"
}

/// The result of a simulated authorize: what Apple hands the client.
public struct ProviderSignIn: Sendable, Hashable {
    public var outcome: AuthorizeOutcome
    /// The authorization code (single use, 5 minutes); nil unless approved.
    public var code: String?
    /// The ID token, possibly forged; nil unless approved.
    public var idToken: String?
    /// The value the client posts as `provider.nonce`. Usually the raw nonce; for C14 the
    /// hash itself (the client-side mistake that case is about).
    public var rawNonce: String?
    /// The `nonce` claim put in the token (SHA-256 hex of the raw nonce), nil when none.
    public var nonceClaim: String?
    public var state: String
    public var user: MockUser
    /// `provider.user`: the user JSON of a first sign-in.
    public var userJSON: String?
    /// Apple's error for a non-approved outcome (`user_cancelled_authorize`).
    public var error: String?
    public var forgery: TokenForgery

    public init(
        outcome: AuthorizeOutcome, code: String?, idToken: String?, rawNonce: String?, nonceClaim: String?,
        state: String, user: MockUser, userJSON: String?, error: String?, forgery: TokenForgery
    ) {
        self.outcome = outcome
        self.code = code
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.nonceClaim = nonceClaim
        self.state = state
        self.user = user
        self.userJSON = userJSON
        self.error = error
        self.forgery = forgery
    }

    /// Placeholder values for a spec's templates (`provider.code`, `provider.id_token`…).
    public var placeholderValues: [String: String] {
        var values: [String: String] = ["provider.state": state, "provider.sub": user.sub, "provider.email": user.email]
        if let code { values["provider.code"] = code }
        if let idToken { values["provider.id_token"] = idToken }
        if let rawNonce { values["provider.nonce"] = rawNonce }
        if let userJSON { values["provider.user"] = userJSON }
        return values
    }
}
