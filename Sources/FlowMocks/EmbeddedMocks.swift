import FlowModel
import FlowParser
import Foundation
import JOSE

/// The mock providers the flows name and the spec-derived mock backend wired together: what
/// `flowspec check` runs against when no `--backend` is given, and what `flowspec mock
/// --backend` serves. One provider per distinct (resolved) profile; flows without a provider
/// start none and generate no key. Each client id is registered at its provider with
/// credentials generated per run, by the profile's first client authentication method.
public struct EmbeddedMocks: Sendable {
    /// One per distinct profile the flows name, ordered by profile id.
    public let providers: [MockProvider]
    public let backend: MockBackend
    /// Where each provider listens, in `providers` order.
    public let providerURLs: [URL]
    public let backendURL: URL
    /// Every client registered at a provider (with its profile id set).
    public let registrations: [ClientRegistration]
    /// Flow id → index in `providers`.
    public let providerIndex: [String: Int]

    /// The first provider (tests built on a single-provider corpus).
    public var provider: MockProvider { providers[0] }
    public var providerURL: URL { providerURLs[0] }

    /// The provider that plays `flowID`'s identity provider, if the flow names one.
    public func provider(forFlow flowID: String) -> MockProvider? { providerIndex[flowID].map { providers[$0] } }

    /// How the backend reaches the provider.
    public enum ProviderLink: Sendable {
        /// Straight into the provider actor (fast; requests are recorded all the same).
        case inProcess
        /// Over loopback HTTP, like a real backend.
        case http
    }

    /// Apple registrations for `flows`: one per declared `client_id` (or `fallbackClientID`),
    /// with the flow's `redirect_uri` when it declares one.
    public static func registrations(for flows: [Flow], teamID: String, keyID: String, publicKeyPEM: String, fallbackClientID: String = "com.example.app") -> [ClientRegistration] {
        var result: [ClientRegistration] = []
        for flow in flows {
            let variables = Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            guard let clientID = variables["client_id"], !result.contains(where: { $0.clientID == clientID }) else { continue }
            result.append(ClientRegistration(clientID: clientID, teamID: teamID, keyID: keyID, publicKeyPEM: publicKeyPEM, redirectURI: variables["redirect_uri"]))
        }
        if result.isEmpty {
            result.append(ClientRegistration(clientID: fallbackClientID, teamID: teamID, keyID: keyID, publicKeyPEM: publicKeyPEM))
        }
        return result
    }

    /// Starts the providers and the backend on `host` (ports 0 = any free port; a fixed
    /// `providerPort` goes to the first provider, the next ones take the following ports).
    public static func start(
        flows: [Flow],
        providers catalog: ProviderCatalog = .builtIn,
        defects: Set<Defect> = [],
        host: String = "127.0.0.1",
        providerPort: Int = 0,
        backendPort: Int = 0,
        link: ProviderLink = .inProcess,
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        keys: ProviderKeyMaterial? = nil
    ) async throws -> EmbeddedMocks {
        // Flows grouped by the provider they name, resolved with their variables.
        var profiles: [ProviderProfile] = []
        var flowProfile: [String: Int] = [:]
        for flow in flows.sorted(by: { $0.id < $1.id }) {
            guard let profile = catalog.resolvedProfile(for: flow) else { continue }
            if let index = profiles.firstIndex(of: profile) {
                flowProfile[flow.id] = index
            } else {
                profiles.append(profile)
                flowProfile[flow.id] = profiles.count - 1
            }
        }
        var providers: [MockProvider] = []
        var urls: [URL] = []
        var registrations: [ClientRegistration] = []
        var credentialsByProfile: [[String: ClientCredentials]] = []
        var defaultClientIDs: [String] = []
        for (index, profile) in profiles.enumerated() {
            let served = flows.filter { flowProfile[$0.id] == index }
            let made = try Self.credentials(for: served, profile: profile, random: random)
            registrations += made.registrations
            credentialsByProfile.append(made.credentials)
            defaultClientIDs.append(made.registrations[0].clientID)
            let provider = MockProvider(profile: profile, registrations: made.registrations, clock: clock, random: random, keys: keys)
            do {
                urls.append(try await provider.start(host: host, port: providerPort == 0 ? 0 : providerPort + index))
            } catch {
                for started in providers { await started.stop() }
                throw error
            }
            providers.append(provider)
        }
        var links: [String: BackendProviderLink] = [:]
        for flow in flows {
            guard let index = flowProfile[flow.id] else { continue }
            let profile = profiles[index]
            links[flow.id] = BackendProviderLink(
                profile: profile, baseURL: urls[index], issuers: profile.issuers(servedAt: urls[index].absoluteString.trimmingSuffix("/")),
                credentials: credentialsByProfile[index], defaultClientID: defaultClientIDs[index],
                redirectURI: flow.variables.first { $0.name == "redirect_uri" }?.value)
        }
        var routes: [String: any MockHTTPHandler] = [:]
        for (index, url) in urls.enumerated() { routes[InProcessTransport.key(url)] = providers[index] }
        let transport: any HTTPTransport = link == .inProcess ? InProcessTransport(routes: routes) : NetworkTransport()
        let backend = MockBackend(flows: flows, links: links, defects: defects, clock: clock, random: random, transport: transport)
        let backendURL: URL
        do {
            backendURL = try await backend.start(host: host, port: backendPort)
        } catch {
            for provider in providers { await provider.stop() }
            throw error
        }
        return EmbeddedMocks(
            providers: providers, backend: backend, providerURLs: urls, backendURL: backendURL, registrations: registrations,
            providerIndex: flowProfile)
    }

    /// Generated per run: one registration per client id the flows declare (or a fallback), and
    /// the backend's side of it, by the profile's first client authentication method.
    static func credentials(for flows: [Flow], profile: ProviderProfile, random: any RandomSource) throws -> (registrations: [ClientRegistration], credentials: [String: ClientCredentials]) {
        var clients: [(id: String, redirect: String?)] = []
        for flow in flows {
            let variables = Dictionary(flow.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            if let id = variables["client_id"], !clients.contains(where: { $0.id == id }) { clients.append((id, variables["redirect_uri"])) }
        }
        if clients.isEmpty { clients.append(("com.example.app", nil)) }
        let method = profile.clientAuthentication.first ?? .clientSecretPost
        var registrations: [ClientRegistration] = []
        var credentials: [String: ClientCredentials] = [:]
        switch method {
        case .appleClientSecret:
            let key = try ECKey.generate()
            let teamID = random.string(length: 10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let keyID = random.string(length: 10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let signer = try ClientSecretSigner(teamID: teamID, keyID: keyID, privateKeyPEM: key.privateKeyPEM)
            for client in clients {
                registrations.append(ClientRegistration(provider: profile.id, clientID: client.id, teamID: teamID, keyID: keyID, publicKeyPEM: key.publicKeyPEM, redirectURI: client.redirect))
                credentials[client.id] = .apple(clientID: client.id, signer: signer)
            }
        case .privateKeyJWT:
            let key = try ECKey.generate()
            let keyID = random.string(length: 12)
            for client in clients {
                registrations.append(ClientRegistration(provider: profile.id, clientID: client.id, keyID: keyID, publicKeyPEM: key.publicKeyPEM, redirectURI: client.redirect))
                credentials[client.id] = .privateKeyJWT(clientID: client.id, key: key, keyID: keyID)
            }
        case .clientSecretBasic, .clientSecretPost:
            for client in clients {
                let secret = random.string(length: 32)
                registrations.append(ClientRegistration(provider: profile.id, clientID: client.id, clientSecret: secret, redirectURI: client.redirect))
                credentials[client.id] = .sharedSecret(method, clientID: client.id, secret: secret)
            }
        }
        return (registrations, credentials)
    }

    public func stop() async {
        await backend.stop()
        for provider in providers { await provider.stop() }
    }
}
