import FlowModel
import FlowParser
import Foundation
import JOSE

/// The embedded mock backend: derived from the flows' `http` blocks, never hand-written per
/// flow. It serves every route the specs name, infers what each does from its templates (sign
/// in with `{{provider.id_token}}`, exchange `{{provider.code}}`, need a session for
/// `Authorization: Bearer {{x}}`, take notifications, delete accounts, check declared
/// credentials), validates provider tokens strictly per token-cases.md against the mock
/// provider's JWKS, and answers each request with the `expect` block of the step or branch it
/// matches. Correct by default; `Defect`s inject classic bugs so the checker can be proved to
/// catch them. Rejections are 4xx with a JSON error and create nothing.
public actor MockBackend: MockHTTPHandler {
    typealias Session = SessionStore.Session

    struct Account {
        var key: String
        var sub: String?
        var email: String?
        var clientID: String?
        /// The flow the account signed in through (its provider link).
        var flowID: String?
        var refreshToken: String?
        var accessToken: String?
        var deleted = false
    }

    struct Rejection: Error {
        var status: Int
        var code: String
        var reason: String
        var malformed = false

        static func malformed(_ reason: String) -> Rejection { Rejection(status: 400, code: "invalid_token", reason: reason, malformed: true) }
        static func invalid(_ reason: String) -> Rejection { Rejection(status: 401, code: "invalid_token", reason: reason) }
        static func request(_ reason: String) -> Rejection { Rejection(status: 400, code: "invalid_request", reason: reason) }
        static func unauthorized(_ reason: String) -> Rejection { Rejection(status: 401, code: "unauthorized", reason: reason) }
        static func upstream(_ reason: String) -> Rejection { Rejection(status: 503, code: "provider_unavailable", reason: reason) }
    }

    /// What an accepted request will do once its success answer is chosen.
    struct Acceptance {
        enum Effect {
            case none
            /// Create a new session for the account (sign-in, credentials, renewal).
            case newSession
            /// Revoke at the provider, end every session, delete the account.
            case deleteAccount
            /// Apply a notification event (once per jti).
            case notification(jti: String, type: String, sub: String, email: String?)
        }

        var account: String?
        var effect: Effect
        var values: [String: String] = [:]
        var replayHash: TokenDigest?
    }

    /// A sign-in token's SHA-256, what the replay caches are keyed by: 32 bytes inline, where
    /// its hex string took an allocation of about a hundred bytes per sign-in.
    struct TokenDigest: Hashable {
        private let words: SIMD4<UInt64>

        init(_ token: String) {
            let digest = Digest.sha256(token.utf8)
            words = digest.withUnsafeBytes { bytes in
                SIMD4(
                    bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            }
        }
    }

    /// One request the backend answered, for `flowspec mock --backend`'s log.
    public struct Record: Sendable, Hashable {
        public var sequence: Int
        public var method: String
        /// Path and query, secrets elided.
        public var path: String
        public var status: Int
        public var flowID: String?
        /// The step (and branch) whose expectation answered, nil for a generic answer.
        public var step: Int?
        public var stepTitle: String?
        public var branch: String?
        /// The conversation (client) the request belonged to.
        public var client: Int?
        /// Why it was refused, when it was.
        public var reason: String?
    }

    public let defects: Set<Defect>
    let flows: [Flow]
    let table: RouteTable
    /// Per flow index: the flow's variables, and the class of flows with the same ones.
    let flowVariables: [[String: String]]
    let variableClass: [Int]
    /// Per flow id: the provider the flow names, where it is and how to authenticate there.
    let links: [String: BackendProviderLink]
    let clock: @Sendable () -> Date
    let random: any RandomSource
    let transport: any HTTPTransport
    let server = MockHTTPServer()

    /// What the backend knows of one provider's JWKS (cached per JWKS URL).
    struct JWKSCache {
        /// The set as served, for the JOSE verifier.
        var set = JWKS(keys: [])
        var keys: [String: [RSAKey]] = [:]
        var first: RSAKey?
        var unusable = 0
        var loaded = false
    }

    var jwksCaches: [String: JWKSCache] = [:]
    var jwksFetches = 0
    var sessions = SessionStore()
    var accounts: [String: Account] = [:]
    /// Sign-in tokens already used (hash → exp), refused as replays until they expire.
    var usedTokens: [TokenDigest: Int64] = [:]
    var usedTokensPruneAt = 1024
    var replayCache: [TokenDigest: String] = [:]
    /// Where each client is in its flow.
    var conversations: Conversations
    /// Values handed out while answering the current request (captures), for `conversations`.
    var issued: [String: String] = [:]
    /// The step or branch whose expectation answered the current request (nil: none did).
    var answeredBy: RouteCandidate?
    /// What the current request's conversation was handed out before (capture name → value).
    var conversationValues: [String: String] = [:]
    var processedJTIs = Set<String>()
    var lastReason: String?

    /// Seconds of clock skew tolerated for `exp`, `iat` and `nbf`.
    static let leeway: Int64 = 60

    /// - Parameter links: per flow id, the provider the flow names (flows without one have none).
    public init(
        flows: [Flow],
        links: [String: BackendProviderLink],
        defects: Set<Defect> = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        transport: (any HTTPTransport)? = nil
    ) {
        self.flows = flows
        self.table = RouteTable(flows: flows)
        let variables = flows.map(Self.variables(of:))
        var classes: [[String: String]: Int] = [:]
        flowVariables = variables
        variableClass = variables.map { set in
            if let known = classes[set] { return known }
            classes[set] = classes.count
            return classes.count - 1
        }
        self.conversations = Conversations(flows: flows)
        self.links = links
        self.defects = defects
        self.clock = clock
        self.random = random
        self.transport = transport ?? NetworkTransport()
    }

    /// Every flow signs in at one Apple provider with an ES256 `client_secret` (tests).
    public init(
        flows: [Flow],
        providerBaseURL: URL,
        registration: ClientRegistration,
        clientPrivateKeyPEM: String,
        defects: Set<Defect> = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        transport: (any HTTPTransport)? = nil
    ) {
        let apple = BuiltinProviders.profiles["apple"]!
        var links: [String: BackendProviderLink] = [:]
        let signer = try? ClientSecretSigner(teamID: registration.teamID ?? "", keyID: registration.keyID ?? "", privateKeyPEM: clientPrivateKeyPEM)
        for flow in flows {
            let profile = apple.resolved(variables: Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
            let clientID = flow.variables.first { $0.name == "client_id" }?.value ?? registration.clientID
            var credentials: [String: ClientCredentials] = [:]
            for id in Set([clientID, registration.clientID]) {
                if let signer { credentials[id] = .apple(clientID: id, signer: signer) }
            }
            links[flow.id] = BackendProviderLink(
                profile: profile, baseURL: providerBaseURL, issuers: profile.issuers(servedAt: providerBaseURL.absoluteString.trimmingSuffix("/")),
                credentials: credentials, defaultClientID: registration.clientID, redirectURI: registration.redirectURI)
        }
        self.init(flows: flows, links: links, defects: defects, clock: clock, random: random, transport: transport)
    }

    // MARK: Lifecycle and introspection

    /// Keeps the newest `limit` request records (0: none).
    public func keepRecords(_ limit: Int) {
        recordLimit = max(0, limit)
        if log.count > recordLimit { log.removeFirst(log.count - recordLimit) }
    }

    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> URL {
        try await server.start(host: host, port: port, handler: self, label: "mock-backend")
    }

    public func stop() async { await server.stop() }

    /// `METHOD /path` of every route served, in spec order.
    public nonisolated var routeDescriptions: [String] { table.routes.map { "\($0.method) \($0.pathText)" } }

    /// Whether `token` (a captured session value) is a live session.
    public func isSessionAlive(_ token: String) -> Bool {
        sessions.isAlive(token)
    }

    /// Accounts created so far (deleted ones included).
    public func accountCount() -> Int { accounts.count }

    /// How often the backend fetched a provider's JWKS.
    public func jwksFetchCount() -> Int { jwksFetches }

    /// Why the last request was rejected (for tests and logs; no secrets).
    public func lastRejectionReason() -> String? { lastReason }

    /// The requests answered so far, oldest first (at least the last `recordLimit`).
    public func records() -> [Record] { log }

    /// How many records `flowspec mock` keeps for its log by default.
    public static let defaultRecordLimit = 10_000
    /// Records kept (the newest); 0 keeps none — a check reads its evidence from its own
    /// requests and the provider's records, never from these.
    var recordLimit = MockBackend.defaultRecordLimit
    var log: [Record] = []
    var sequence = 0

    func record(_ request: MockHTTPRequest, _ response: MockHTTPResponse, flowIndex: Int?, client: Int?) {
        sequence += 1
        guard recordLimit > 0 else { return }
        let answering = answeredBy.flatMap { candidate in flows[candidate.flowIndex].step(candidate.step).map { (candidate, $0) } }
        let branch = answering.flatMap { candidate, step in
            candidate.alternateIndex.flatMap { step.alternates.indices.contains($0) ? step.alternates[$0].label : nil }
        }
        let target = request.path + (request.query.map { "?" + $0 } ?? "")
        log.append(Record(
            sequence: sequence, method: request.method, path: Redaction.text(target), status: response.status,
            flowID: (answering?.0.flowIndex ?? flowIndex).map { flows[$0].id }, step: answering?.1.number, stepTitle: answering?.1.title,
            branch: branch, client: client, reason: response.status >= 400 ? lastReason : nil))
        // Trimmed in batches: shifting 10 000 entries on every request cost 9 % of the CPU.
        if log.count > recordLimit + recordLimit / 2 { log.removeFirst(log.count - recordLimit) }
    }

    var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    func has(_ defect: Defect) -> Bool { defects.contains(defect) }

    /// Request members the backend lets the client leave out (only with `nonce-optional`).
    var optionalInputs: Set<String> { has(.nonceOptional) ? ["provider.nonce"] : [] }

    func freshToken() -> String { "fs_" + random.string(length: 32) }

}

/// How the embedded mock backend reaches the provider of one flow: the profile (resolved), where
/// the provider is, the issuers it accepts, and how it authenticates per client id.
public struct BackendProviderLink: Sendable {
    public var profile: ProviderProfile
    public var baseURL: URL
    public var issuers: [String]
    public var credentials: [String: ClientCredentials]
    /// The client id used when a token names none of the flows' (and for routes without one).
    public var defaultClientID: String
    public var redirectURI: String?

    public init(profile: ProviderProfile, baseURL: URL, issuers: [String], credentials: [String: ClientCredentials], defaultClientID: String, redirectURI: String? = nil) {
        self.profile = profile
        self.baseURL = baseURL
        self.issuers = issuers
        self.credentials = credentials
        self.defaultClientID = defaultClientID
        self.redirectURI = redirectURI
    }

    func url(of path: String) -> URL {
        URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) ?? baseURL
    }
}
