import FlowModel
import Foundation
import JOSE

/// A mock provider and the spec-derived mock backend wired together: what `flowspec check`
/// runs against when no `--backend` is given, and what `flowspec mock --backend` serves.
/// The backend's client key, team id and key id are generated per run, and every `client_id`
/// the flows declare is registered at the provider with that key.
public struct EmbeddedMocks: Sendable {
    public let provider: MockProvider
    public let backend: MockBackend
    public let providerURL: URL
    public let backendURL: URL
    /// One per `client_id` the flows declare (all share the backend's signing key).
    public let registrations: [ClientRegistration]

    /// How the backend reaches the provider.
    public enum ProviderLink: Sendable {
        /// Straight into the provider actor (fast; requests are recorded all the same).
        case inProcess
        /// Over loopback HTTP, like a real backend.
        case http
    }

    /// Registrations for `flows`: one per declared `client_id` (or `fallbackClientID`), with the
    /// flow's `redirect_uri` when it declares one.
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

    /// Starts both servers on `host` (ports 0 = any free port).
    public static func start(
        flows: [Flow],
        defects: Set<Defect> = [],
        host: String = "127.0.0.1",
        providerPort: Int = 0,
        backendPort: Int = 0,
        link: ProviderLink = .inProcess,
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomSource = SystemRandom(),
        keys: ProviderKeyMaterial? = nil
    ) async throws -> EmbeddedMocks {
        let clientKey = try ECKey.generate()
        let teamID = random.string(length: 10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = random.string(length: 10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let registrations = Self.registrations(for: flows, teamID: teamID, keyID: keyID, publicKeyPEM: clientKey.publicKeyPEM)
        let provider = MockProvider(registrations: registrations, clock: clock, random: random, keys: keys)
        let providerURL = try await provider.start(host: host, port: providerPort)
        let transport: any HTTPTransport = link == .inProcess ? InProcessTransport(baseURL: providerURL, handler: provider) : NetworkTransport()
        let backend = MockBackend(
            flows: flows, providerBaseURL: providerURL, registration: registrations[0], clientPrivateKeyPEM: clientKey.privateKeyPEM,
            defects: defects, clock: clock, random: random, transport: transport)
        let backendURL: URL
        do {
            backendURL = try await backend.start(host: host, port: backendPort)
        } catch {
            await provider.stop()
            throw error
        }
        return EmbeddedMocks(provider: provider, backend: backend, providerURL: providerURL, backendURL: backendURL, registrations: registrations)
    }

    public func stop() async {
        await backend.stop()
        await provider.stop()
    }
}
