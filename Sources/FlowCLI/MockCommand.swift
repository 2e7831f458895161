import ArgumentParser
import FlowLint
import FlowMocks
import FlowModel
import Foundation

struct MockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run the mock Apple identity provider (and optionally the embedded mock backend) on 127.0.0.1.",
        discussion: """
        Starts flowspec's mock of Sign in with Apple so a developer can point a real backend's \
        Apple base URL at it by hand: it serves the JWKS (per-run RS256 keys), the token and \
        revoke endpoints with Apple's rules and error bodies, an authorize page, and records \
        every request it gets. Give the backend's client registration so the client_secret JWTs \
        it sends can be verified; every violation is named in the log line of the request.

        With --backend, the embedded mock backend derived from the specs runs too (its own \
        client key and registrations are generated), with --defect to break it on purpose.

        Examples:
          flowspec mock --port 9999 --registration apple-client.json
          flowspec mock --client-id com.example.web --team-id A1B2C3D4E5 --key-id 2X9R4HXF34 \\
              --client-public-key AuthKey_2X9R4HXF34.pub.pem
          flowspec mock --backend --backend-port 8080 flows/

        Authorize by hand: open \
        <provider>/auth/authorize?client_id=…&redirect_uri=…&response_type=code%20id_token\
        &response_mode=form_post&state=…&nonce=… (add flowspec_outcome=denied or \
        authentication-failed to simulate those). Stop with Ctrl-C.

        Exit status: 0 stopped by a signal, 2 bad registration or specs, 3 a server could not start \
        (64 for unusable arguments, as with every command).
        """
    )

    @Argument(help: "Spec files or directories for --backend (default: flows/).")
    var paths: [String] = []

    @Option(help: ArgumentHelp("Port of the mock provider (default: any free port).", valueName: "port"))
    var port: Int = 0

    @Option(help: ArgumentHelp("The backend's client registration (JSON file).", valueName: "file"))
    var registration: String?

    @Option(help: ArgumentHelp("Client id (services id or bundle id) the backend signs client_secret for.", valueName: "id"))
    var clientID: String?

    @Option(help: ArgumentHelp("Team id: the iss of the backend's client_secret.", valueName: "id"))
    var teamID: String?

    @Option(help: ArgumentHelp("Key id: the kid of the backend's client_secret.", valueName: "id"))
    var keyID: String?

    @Option(help: ArgumentHelp("PEM file with the P-256 public key of the backend's signing key.", valueName: "file"))
    var clientPublicKey: String?

    @Option(help: ArgumentHelp("Redirect URI registered for the client (web flows).", valueName: "url"))
    var redirectURI: String?

    @Flag(help: "Also run the embedded mock backend derived from the specs.")
    var backend = false

    @Option(help: ArgumentHelp("Port of the embedded mock backend (default: any free port).", valueName: "port"))
    var backendPort: Int = 0

    @Option(name: .customLong("defect"), help: ArgumentHelp("Inject a defect into the embedded mock backend (repeatable).", valueName: "name"))
    var defects: [String] = []

    @Flag(help: "Do not log each request the provider receives.")
    var quiet = false

    func validate() throws {
        for (name, value) in [("--port", port), ("--backend-port", backendPort)] where !(0...65535).contains(value) {
            throw ValidationError("\(name) must be 0…65535")
        }
        let flags = [clientID, teamID, keyID, clientPublicKey]
        if flags.contains(where: { $0 != nil }), flags.contains(where: { $0 == nil }) {
            throw ValidationError("--client-id, --team-id, --key-id and --client-public-key go together")
        }
        if registration != nil, clientID != nil { throw ValidationError("give --registration or the registration flags, not both") }
        if !backend, !defects.isEmpty { throw ValidationError("--defect applies to the embedded mock backend: add --backend") }
        if !backend, backendPort != 0 { throw ValidationError("--backend-port needs --backend") }
        for name in defects where Defect(name: name) == nil {
            throw ValidationError("unknown defect \(name); known: \(Defect.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let command = self
        let code = blockingRun { await MockCLI.execute(command, write: { Terminal.write($0) }, until: MockCLI.interruption) }
        if code != 0 { throw ExitCode(code) }
    }
}

/// The library side of `flowspec mock`: starts the servers, prints where they are, logs the
/// provider's requests (secrets elided) until `until` returns, then stops cleanly.
enum MockCLI {
    static func execute(_ command: MockCommand, write: @escaping @Sendable (String) -> Void, until: @escaping @Sendable () async -> Void) async -> Int32 {
        var registrations: [ClientRegistration] = []
        do {
            if let registration = try loadRegistration(command) { registrations.append(registration) }
        } catch {
            write("error: \(error)\n")
            return 2
        }
        let provider: MockProvider
        var stops: [@Sendable () async -> Void] = []
        var lines: [String] = []
        if command.backend {
            let run = Linter().lint(paths: command.paths.isEmpty ? ["flows"] : command.paths)
            if run.hasErrors || run.flows.isEmpty {
                write(DiagnosticPrinter.text(run.diagnostics.filter { $0.severity == .error }, color: false))
                write("error: \(run.flows.isEmpty ? "no flow specs found" : "the specs have lint errors (flowspec lint)")\n")
                return 2
            }
            let mocks: EmbeddedMocks
            do {
                mocks = try await EmbeddedMocks.start(
                    flows: run.flows, defects: Set(command.defects.compactMap(Defect.init(name:))),
                    providerPort: command.port, backendPort: command.backendPort)
            } catch {
                write("error: the mock servers could not start: \(error)\n")
                return 3
            }
            provider = mocks.provider
            for registration in registrations { await provider.addRegistration(registration) }
            stops.append { await mocks.stop() }
            lines += providerLines(mocks.providerURL)
            lines.append("mock backend (derived from \(run.flows.count) flow\(run.flows.count == 1 ? "" : "s")): \(mocks.backendURL.absoluteString)")
            for route in mocks.backend.routeDescriptions { lines.append("  \(route)") }
            if let first = mocks.registrations.first {
                lines.append("  its client registration: team \(first.teamID), key \(first.keyID), clients \(mocks.registrations.map(\.clientID).joined(separator: ", "))")
            }
            if !command.defects.isEmpty { lines.append("  defects: \(command.defects.joined(separator: ", "))") }
        } else {
            provider = MockProvider(registrations: registrations)
            let url: URL
            do {
                url = try await provider.start(host: "127.0.0.1", port: command.port)
            } catch {
                write("error: the mock provider could not start on 127.0.0.1:\(command.port): \(error)\n")
                return 3
            }
            stops.append { await provider.stop() }
            lines += providerLines(url)
        }
        let clients = registrations.map(\.clientID)
        if clients.isEmpty && !command.backend {
            lines.append("warning: no client registration (--registration, or --client-id/--team-id/--key-id/--client-public-key): every client_secret will be refused as unknown-client")
        } else if !clients.isEmpty {
            lines.append("registered clients: \(clients.joined(separator: ", "))")
        }
        lines.append("ID tokens are issued by \(FlowMocks.appleIssuer). Ctrl-C stops.")
        write(lines.joined(separator: "\n") + "\n")

        let logger = Task {
            var seen = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))
                let records = await provider.records()
                if !command.quiet {
                    for record in records.dropFirst(seen) { write(describe(record) + "\n") }
                }
                seen = records.count
            }
        }
        await until()
        logger.cancel()
        _ = await logger.result
        for stop in stops { await stop() }
        write("stopped\n")
        return 0
    }

    static func providerLines(_ url: URL) -> [String] {
        let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
        return [
            "mock Apple provider: \(base)",
            "  JWKS:      \(base)\(MockProvider.jwksPath)",
            "  token:     \(base)\(MockProvider.tokenPath)",
            "  revoke:    \(base)\(MockProvider.revokePath)",
            "  authorize: \(base)\(MockProvider.authorizePath)",
            "  discovery: \(base)\(MockProvider.configurationPath)",
        ]
    }

    /// One log line per request; secrets are already elided in the record.
    static func describe(_ record: RecordedRequest) -> String {
        var parts = ["#\(record.sequence)", record.method, record.path, "→ \(record.status)"]
        if let error = record.error { parts.append(error) }
        if let grant = record.grantType { parts.append("grant_type=\(grant)") }
        if let client = record.clientID { parts.append("client_id=\(client)") }
        if let secret = record.clientSecret {
            parts.append(secret.violations.isEmpty ? "client_secret ok" : "client_secret: " + secret.violations.map(\.rawValue).joined(separator: ", "))
        }
        if record.endpoint == .attackerJWKS || record.endpoint == .attackerX5U { parts.append("(the backend followed a jku/x5u header!)") }
        return parts.joined(separator: " ")
    }

    struct RegistrationError: Error, CustomStringConvertible {
        var description: String
    }

    static func loadRegistration(_ command: MockCommand) throws -> ClientRegistration? {
        if let path = command.registration {
            guard let data = FileManager.default.contents(atPath: path) else { throw RegistrationError(description: "--registration \(path): cannot read the file") }
            do {
                return try JSONDecoder().decode(ClientRegistration.self, from: data)
            } catch {
                throw RegistrationError(description: "--registration \(path): expected JSON with client_id, team_id, key_id, public_key_pem (\(error))")
            }
        }
        guard let clientID = command.clientID, let teamID = command.teamID, let keyID = command.keyID, let keyPath = command.clientPublicKey else { return nil }
        guard let data = FileManager.default.contents(atPath: keyPath), let pem = String(data: data, encoding: .utf8), pem.contains("BEGIN PUBLIC KEY") else {
            throw RegistrationError(description: "--client-public-key \(keyPath): expected a PEM public key (-----BEGIN PUBLIC KEY-----)")
        }
        return ClientRegistration(clientID: clientID, teamID: teamID, keyID: keyID, publicKeyPEM: pem, redirectURI: command.redirectURI)
    }

    /// Returns when the process gets SIGINT (Ctrl-C) or SIGTERM.
    @Sendable static func interruption() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once()
            var sources: [DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }

    private final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func claim() -> Bool {
            lock.withLock {
                if done { return false }
                done = true
                return true
            }
        }
    }

    /// Keeps signal sources alive for the life of the process.
    private enum SignalSources {
        nonisolated(unsafe) static var all: [DispatchSourceSignal] = []
        static func keep(_ sources: [DispatchSourceSignal]) { all += sources }
    }
}
