import ArgumentParser
import FlowMocks
import FlowModel
import Foundation

/// The backend's client registrations at the mock providers, shared by `check` and `mock`:
/// a registration file (one object or an array, any provider), or Apple's flags.
struct RegistrationOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The backend's client registrations: a JSON file with one object or an array, e.g. {\"provider\": \"google\", \"client_id\": …, \"client_secret_env\": \"GOOGLE_CLIENT_SECRET\"} (docs/providers.md).",
        valueName: "file"))
    var registration: String?

    @Option(help: ArgumentHelp("Apple: client id (services id or bundle id) the backend signs client_secret for.", valueName: "id"))
    var clientID: String?

    @Option(help: ArgumentHelp("Apple: team id, the iss of the backend's client_secret.", valueName: "id"))
    var teamID: String?

    @Option(help: ArgumentHelp("Apple: key id, the kid of the backend's client_secret.", valueName: "id"))
    var keyID: String?

    @Option(help: ArgumentHelp("Apple: PEM file with the P-256 public key of the backend's signing key.", valueName: "file"))
    var clientPublicKey: String?

    @Option(help: ArgumentHelp("Redirect URI registered with the --client-id flags (web flows).", valueName: "url"))
    var redirectURI: String?

    func validate() throws {
        let flags = [clientID, teamID, keyID, clientPublicKey]
        if flags.contains(where: { $0 != nil }), flags.contains(where: { $0 == nil }) {
            throw ValidationError("--client-id, --team-id, --key-id and --client-public-key go together")
        }
        if registration != nil, clientID != nil { throw ValidationError("give --registration or the registration flags, not both") }
        if redirectURI != nil, clientID == nil { throw ValidationError("--redirect-uri goes with the --client-id flags (in a registration file, use \"redirect_uri\")") }
    }

    /// The registrations given; secrets come from the environment or files, never the command line.
    func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [ClientRegistration] {
        if let path = registration {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ClientRegistration.LoadError(description: "--registration \(path): cannot read the file")
            }
            let directory = PathText.folder(of: path)
            return try ClientRegistration.load(json: Array(data), directory: directory, environment: environment, source: "--registration \(path)")
        }
        guard let clientID, let teamID, let keyID, let keyPath = clientPublicKey else { return [] }
        guard let data = FileManager.default.contents(atPath: keyPath), let pem = String(data: data, encoding: .utf8), pem.contains("BEGIN PUBLIC KEY") else {
            throw ClientRegistration.LoadError(description: "--client-public-key \(keyPath): expected a PEM public key (-----BEGIN PUBLIC KEY-----)")
        }
        return [ClientRegistration(provider: "apple", clientID: clientID, teamID: teamID, keyID: keyID, publicKeyPEM: pem, redirectURI: redirectURI)]
    }
}

/// Where the mock providers listen and how a backend elsewhere reaches them.
struct ProviderAddressOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Address the mock providers bind: 127.0.0.1, or 0.0.0.0 for a backend in a container.", valueName: "address"))
    var providerHost: String = "127.0.0.1"

    @Option(help: ArgumentHelp(
        "Base URL the backend reaches the provider at, when not where it listens (e.g. http://host.docker.internal:9999); written into the discovery document, jku URLs and {{provider.url}} issuers.",
        valueName: "url"))
    var providerURL: String?

    func validate() throws {
        if providerHost.isEmpty || providerHost.contains("/") || providerHost.contains(" ") {
            throw ValidationError("--provider-host \(providerHost): expected an address such as 127.0.0.1 or 0.0.0.0")
        }
        if let providerURL {
            guard let url = URL(string: providerURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("--provider-url \(providerURL): expected an http(s) URL")
            }
        }
    }

    var advertisedURL: URL? { providerURL.flatMap(URL.init(string:)) }
}
