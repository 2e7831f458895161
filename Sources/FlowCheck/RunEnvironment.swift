import FlowMocks
import FlowParser
import FlowModel
import Foundation
import JOSE

/// What every item of a run shares: where the backend is, how to reach it, the provider the
/// checker plays, and the injected sources of time and randomness.
public struct RunEnvironment: Sendable {
    public var backendURL: String
    public var transport: any BackendTransport
    /// Per flow id: the mock provider playing the flow's identity provider (none for flows that
    /// name no provider).
    public var providers: [String: FlowProvider]
    /// Client id used when a flow declares no `client_id` variable.
    public var defaultClientID: String
    /// Per-request timeout, seconds.
    public var timeout: Double
    /// How long to wait for a backend → provider call to show up in the provider's records.
    public var observeWait: Double
    public var random: any RandomSource
    /// The item being run's codes, for its providers to forget once it is judged (set per item
    /// by `ItemRunner`).
    var signIns: SignInLedger?

    public init(
        backendURL: String, transport: any BackendTransport, providers: [String: FlowProvider], defaultClientID: String,
        timeout: Double, observeWait: Double = 2, random: any RandomSource = SystemRandom()
    ) {
        self.backendURL = backendURL
        self.transport = transport
        self.providers = providers
        self.defaultClientID = defaultClientID
        self.timeout = timeout
        self.observeWait = observeWait
        self.random = random
    }
}

/// The mock provider of one flow, with the profile it plays and how the flow's nonce reaches
/// the claim.
public struct FlowProvider: Sendable {
    public var provider: MockProvider
    public var profile: ProviderProfile
    public var nonce: NonceTransform

    public init(provider: MockProvider, profile: ProviderProfile, nonce: NonceTransform) {
        self.provider = provider
        self.profile = profile
        self.nonce = nonce
    }
}

/// The flow names no identity provider, but a step needs one.
struct NoProvider: Error, CustomStringConvertible {
    var flowID: String
    var description: String { "flow \(flowID) names no identity provider (`provider:` in the front matter)" }
}
