import FlowModel

/// What the checker saw, with every secret elided: enough to understand a failure without
/// re-running it.
public struct Evidence: Sendable, Codable, Hashable {
    public var request: RequestEvidence?
    public var response: ResponseEvidence?
    /// The token the case submitted, decoded; the signature is never included.
    public var token: TokenEvidence?
    /// Requests the backend made to the mock provider that bear on the verdict.
    public var providerRequests: [ProviderRequestEvidence]
    public var notes: [String]

    public init(
        request: RequestEvidence? = nil, response: ResponseEvidence? = nil, token: TokenEvidence? = nil,
        providerRequests: [ProviderRequestEvidence] = [], notes: [String] = []
    ) {
        self.request = request
        self.response = response
        self.token = token
        self.providerRequests = providerRequests
        self.notes = notes
    }
}

public struct RequestEvidence: Sendable, Codable, Hashable {
    public var method: String
    public var url: String
    public var headers: [HeaderField]
    /// At most 500 bytes, secrets elided.
    public var bodyExcerpt: String?

    public init(method: String, url: String, headers: [HeaderField], bodyExcerpt: String?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.bodyExcerpt = bodyExcerpt
    }

    public var requestLine: String { "\(method) \(url)" }
}

public struct ResponseEvidence: Sendable, Codable, Hashable {
    /// nil when no response arrived (see `failure`).
    public var status: Int?
    public var headers: [HeaderField]
    /// At most 500 bytes, secrets elided.
    public var bodyExcerpt: String?
    /// Bytes read (reads stop at the cap).
    public var bodyBytes: Int
    /// True when the body exceeded the read cap and was cut.
    public var truncated: Bool
    public var elapsedMS: Int
    /// Transport failure: `timeout`, `connection-refused`, `connection-reset`, `other: …`.
    public var failure: String?

    public init(status: Int?, headers: [HeaderField], bodyExcerpt: String?, bodyBytes: Int, truncated: Bool, elapsedMS: Int, failure: String?) {
        self.status = status
        self.headers = headers
        self.bodyExcerpt = bodyExcerpt
        self.bodyBytes = bodyBytes
        self.truncated = truncated
        self.elapsedMS = elapsedMS
        self.failure = failure
    }
}

public struct TokenEvidence: Sendable, Codable, Hashable {
    /// Decoded header JSON (or the raw segment when it is not JSON), secrets elided.
    public var header: String
    /// Decoded claims JSON (or the raw segment), secrets elided.
    public var claims: String
    /// Always `<elided>`: signatures are never printed.
    public var signature: String
    /// Number of dot-separated segments.
    public var segments: Int

    public init(header: String, claims: String, signature: String = "<elided>", segments: Int) {
        self.header = header
        self.claims = claims
        self.signature = signature
        self.segments = segments
    }
}

public struct ProviderRequestEvidence: Sendable, Codable, Hashable {
    public var method: String
    public var path: String
    public var endpoint: String
    public var grantType: String?
    public var status: Int
    public var error: String?
    /// The provider's `error_description`, when it gave one.
    public var errorDescription: String?
    /// Named `client_secret` violations (empty = valid).
    public var clientSecretViolations: [String]
    /// Form fields, secrets elided.
    public var fields: [String: String]

    public init(method: String, path: String, endpoint: String, grantType: String?, status: Int, error: String?, errorDescription: String? = nil, clientSecretViolations: [String], fields: [String: String]) {
        self.method = method
        self.path = path
        self.endpoint = endpoint
        self.grantType = grantType
        self.status = status
        self.error = error
        self.errorDescription = errorDescription
        self.clientSecretViolations = clientSecretViolations
        self.fields = fields
    }
}
