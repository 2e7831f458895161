import Foundation
import JOSE

/// What Apple knows about a client (an app's bundle id or a web Services ID): the checker needs
/// it to verify the `client_secret` JWTs the backend sends. For a real backend it comes from a
/// config file or flags; for the embedded mock it is generated per run.
public struct ClientRegistration: Sendable, Codable, Hashable {
    /// Services id / bundle id: `aud` of ID tokens, `sub` of `client_secret`.
    public var clientID: String
    /// `iss` of `client_secret`.
    public var teamID: String
    /// `kid` of `client_secret`.
    public var keyID: String
    /// P-256 public key (SubjectPublicKeyInfo PEM) that verifies `client_secret`.
    public var publicKeyPEM: String
    /// Where web flows redirect after authorize; the code exchange must repeat it when set.
    public var redirectURI: String?

    public init(clientID: String, teamID: String, keyID: String, publicKeyPEM: String, redirectURI: String? = nil) {
        self.clientID = clientID
        self.teamID = teamID
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.redirectURI = redirectURI
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case teamID = "team_id"
        case keyID = "key_id"
        case publicKeyPEM = "public_key_pem"
        case redirectURI = "redirect_uri"
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

    public init(
        sub: String, email: String, emailVerified: Bool = true, isPrivateEmail: Bool = false,
        realUserStatus: Int = 2, firstName: String? = nil, lastName: String? = nil
    ) {
        self.sub = sub
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.realUserStatus = realUserStatus
        self.firstName = firstName
        self.lastName = lastName
    }

    /// A realistic user with an Apple-shaped `sub` and a private relay address.
    public static func random(using random: any RandomSource = SystemRandom()) -> MockUser {
        let hex = random.bytes(16).map { String(format: "%02x", $0) }.joined()
        let prefix = random.string(length: 6, alphabet: "0123456789")
        let suffix = random.string(length: 4, alphabet: "0123456789")
        let local = random.string(length: 10, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
        return MockUser(
            sub: "\(prefix).\(hex).\(suffix)", email: "\(local)@privaterelay.appleid.com",
            emailVerified: true, isPrivateEmail: true, realUserStatus: 2,
            firstName: "Test", lastName: "User")
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
