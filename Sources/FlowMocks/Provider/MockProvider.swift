import FlowModel
import FlowParser
import Foundation
import JOSE

/// The mock identity provider: flowspec plays the provider a flow names, as its profile
/// (`ProviderProfile`) describes it — issuers, paths, discovery document, client
/// authentication, the claims of an honest ID token. Serves a JWKS of per-run RS256 keys,
/// answers the token, revocation and userinfo endpoints, simulates the authorize step, mints
/// honest and forged ID tokens (and Apple's notifications), and records every request made to
/// it (secrets elided) so checks can assert on what the backend did — and did not — do.
///
/// The checker drives it in-process through the "side door" (`signIn`, `mintNotification`…);
/// the backend under test reaches it over HTTP. Keys are generated on first use, once per
/// provider: a run whose flows never sign in generates none.
public actor MockProvider: MockHTTPHandler {
    /// Served so that a backend that follows `jku` (S8) is recorded doing it.
    public static let attackerJWKSPath = "/attacker/jwks.json"
    public static let attackerX5UPath = "/attacker/key.pem"

    enum JWKSEntry {
        case signing(ProviderKey)
        case unusable(JSONObject)
    }

    struct CodeGrant {
        var clientID: String
        var user: MockUser
        var nonceClaim: String?
        var issuedAt: Int64
        var redirectURI: String?
        var used = false
    }

    struct TokenGrant {
        var clientID: String
        var user: MockUser
        var nonceClaim: String?
        var kind: String
        var parent: String?
        var revoked = false
    }

    /// The profile played, its `{{variables}}` already filled in for the flows it serves.
    public nonisolated let profile: ProviderProfile
    var registrations: [String: ClientRegistration] = [:]
    let clock: @Sendable () -> Date
    let random: any RandomSource
    /// Key material given by the caller (tests share one set); nil = generate on first use.
    let givenMaterial: ProviderKeyMaterial?
    var entries: [JWKSEntry] = []
    var signingKey: ProviderKey?
    /// How many of the JWKS's three signing keys have a private half (the rest are decoys).
    var privateSigningKeys = 3
    var spares: [RSAKey] = []
    var attackerKey: RSAKey?
    let attackerKeyID: String
    var seenAssertionIDs = Set<String>()
    var codes: [String: CodeGrant] = [:]
    var tokens: [String: TokenGrant] = [:]
    var override: TokenEndpointOverride?
    /// Records kept (the newest): bounded memory for a mock that runs for days.
    static let recordLimit = 100_000
    var log = RecordLog(limit: MockProvider.recordLimit)
    /// Codes in order of issue, so expired ones are dropped from the front.
    var codeOrder: [(issuedAt: Int64, code: String)] = []
    var codeOrderStart = 0
    /// Codes forgotten (`forget(codes:)`) since `codeOrder` last dropped them.
    var codesForgotten = 0
    /// Refresh tokens per `sub`, and the tokens issued under each refresh token.
    var refreshBySub: [String: [String]] = [:]
    var children: [String: [String]] = [:]
    /// The refresh tokens issued by exchanging each code (`forget(codes:)`).
    var exchanged: [String: [String]] = [:]
    var sequence = 0
    let server = MockHTTPServer()
    var configuredBaseURL: URL?
    /// The user of manual sign-ins through the authorization endpoint.
    public let defaultUser: MockUser

    /// - Parameters:
    ///   - profile: the provider to play (resolved: `{{tenant_id}}` filled in); Apple by default.
    ///   - registrations: clients the provider can authenticate.
    ///   - keys: RSA key material; when nil, 3 signing keys are generated on first use, an
    ///     attacker key when a forgery needs one, and a new key per rotation.
    public init(
        profile: ProviderProfile? = nil,
        registrations: [ClientRegistration],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        keys: ProviderKeyMaterial? = nil
    ) {
        let profile = profile ?? BuiltinProviders.profiles["apple"]!
        self.profile = profile
        self.givenMaterial = keys
        self.clock = clock
        self.random = random
        self.attackerKeyID = random.keyID()
        self.defaultUser = MockUser.random(using: random, profile: profile)
        for registration in registrations where registration.applies(to: profile.id) {
            self.registrations[registration.clientID] = registration
        }
    }

    // MARK: Lifecycle

    /// Starts serving on `host:port` (0 = any free port) and returns the URL it listens on.
    /// `advertised` is the base URL the backend reaches it at, when that differs (a backend in a
    /// container): it goes into the discovery document, `{{provider.url}}` issuers and `jku`.
    public func start(host: String = "127.0.0.1", port: Int = 0, advertised: URL? = nil) async throws -> URL {
        let url = try await server.start(host: host, port: port, handler: self, label: "mock-provider")
        configuredBaseURL = advertised ?? url
        return url
    }

    public func stop() async {
        await server.stop()
    }

    /// Where the backend reaches the provider; also used for `jku`/`x5u` URLs. Set by `start`,
    /// or by `setBaseURL` when it runs behind the in-process transport.
    public var baseURL: URL? { configuredBaseURL }

    public func setBaseURL(_ url: URL) { configuredBaseURL = url }

    var base: String { configuredBaseURL?.absoluteString.trimmingSuffix("/") ?? "http://127.0.0.1:9" }

    /// The issuer honest tokens carry (the profile's first issuer, `{{provider.url}}` filled in).
    public var issuer: String { profile.issuers(servedAt: base)[0] }

    /// Every issuer the profile lists, filled in.
    public var issuers: [String] { profile.issuers(servedAt: base) }

    /// Full URL of an endpoint path of the profile.
    public func url(of path: String) -> String { base + path }

    public func addRegistration(_ registration: ClientRegistration) {
        registrations[registration.clientID] = registration
    }

    public func registration(for clientID: String) -> ClientRegistration? { registrations[clientID] }

    public var registeredClientIDs: [String] { registrations.keys.sorted() }

}

extension String {
    /// This text without every trailing repetition of `suffix` (`"http://h//"` → `"http://h"`).
    public func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while !suffix.isEmpty, text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
