import ArgumentParser
import FlowLint
import FlowMocks
import FlowModel
import FlowParser
import Foundation
import UnixSignals

struct MockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run a mock identity provider (and optionally the embedded mock backend) on 127.0.0.1.",
        discussion: """
        Starts flowspec's mock of an identity provider — apple, google, microsoft, oidc, or a \
        project's NAME.provider.yml next to the specs — so a developer can point a real \
        backend at it by hand: it serves the profile's discovery document, the JWKS (per-run \
        RS256 keys), the token, revocation and userinfo endpoints with the provider's rules, an \
        authorize page, and records every request it gets. Give the backend's client \
        registration so its client authentication can be verified; every violation is named \
        in the log line of the request.

        With --backend, the embedded mock backend derived from the specs runs too, with a mock \
        provider for each provider the specs name (their client credentials are generated), \
        and --defect breaks the backend on purpose.

        Examples:
          flowspec mock --provider google --port 9999 --registration google-client.json
          flowspec mock --port 9999 --client-id com.example.web --team-id A1B2C3D4E5 \\
              --key-id 2X9R4HXF34 --client-public-key AuthKey_2X9R4HXF34.pub.pem
          flowspec mock --provider oidc --provider-host 0.0.0.0 \\
              --provider-url http://host.docker.internal:9999 --port 9999 \\
              --registration clients.json
          flowspec mock --backend --backend-port 8080 flows/

        Authorize by hand: open the printed authorize URL with client_id, redirect_uri, \
        response_type, state and nonce (add flowspec_outcome=denied or authentication-failed to \
        simulate those). Stop with Ctrl-C.

        Exit status: 0 stopped by a signal, 2 bad registration, provider or specs, 3 a server \
        could not start (64 for unusable arguments, as with every command).
        """
    )

    @Argument(help: "Spec files or directories: where --backend reads its flows and where NAME.provider.yml profiles are found (default: flows/).")
    var paths: [String] = []

    @Option(help: ArgumentHelp("The provider to play without --backend: apple, google, microsoft, oidc, or a project profile.", valueName: "name"))
    var provider: String = "apple"

    @Option(help: ArgumentHelp("Port of the mock provider (default: any free port).", valueName: "port"))
    var port: Int = 0

    @OptionGroup(title: "Where the mock provider listens")
    var address: ProviderAddressOptions

    @OptionGroup(title: "The backend's client registrations")
    var registrations: RegistrationOptions

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
        if !backend, !defects.isEmpty { throw ValidationError("--defect applies to the embedded mock backend: add --backend") }
        if !backend, backendPort != 0 { throw ValidationError("--backend-port needs --backend") }
        for name in defects where Defect(name: name) == nil {
            throw ValidationError("unknown defect \(name); known: \(Defect.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        // Trapped before the servers start, so a signal during start-up is not lost.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let code = await MockCLI.execute(self, write: { Terminal.write($0) }, until: {
            for await _ in signals { return }
        })
        if code != 0 { throw ExitCode(code) }
    }
}

/// The library side of `flowspec mock`: starts the servers, prints where they are, logs the
/// providers' requests (secrets elided) until `until` returns, then stops cleanly.
enum MockCLI {
    /// What is running: the servers, how to stop them, and the lines that say where they are.
    struct Started {
        var providers: [MockProvider] = []
        var backend: MockBackend?
        var stops: [@Sendable () async -> Void] = []
        var lines: [String] = []
    }

    static func execute(_ command: MockCommand, write: @escaping @Sendable (String) -> Void, until: @escaping @Sendable () async -> Void) async -> Int32 {
        let registrations: [ClientRegistration]
        do {
            registrations = try command.registrations.load()
        } catch {
            write("error: \(error)\n")
            return CommandExit.badInput
        }
        let paths = SpecPaths.resolve(command.paths)
        let outcome = command.backend
            ? await startEmbedded(command, paths: paths, registrations: registrations, write: write)
            : await startProvider(command, paths: paths, registrations: registrations, write: write)
        var started: Started
        switch outcome {
        case .success(let running): started = running
        case .failure(let failure): return failure.code
        }
        if registrations.isEmpty && !command.backend {
            started.lines.append("warning: no client registration (--registration, or the Apple --client-id flags): every client authentication will be refused as unknown-client")
        } else if !registrations.isEmpty {
            started.lines.append("registered clients: \(registrations.map(\.description).joined(separator: "; "))")
        }
        started.lines.append("Ctrl-C stops.")
        write(started.lines.joined(separator: "\n") + "\n")
        let logger = Task { [started] in await log(started, quiet: command.quiet, write: write) }
        await until()
        logger.cancel()
        _ = await logger.result
        for stop in started.stops { await stop() }
        write("stopped\n")
        return CommandExit.passed
    }

    /// Why the servers did not start: the exit status (the message is already written).
    struct StartFailure: Error {
        var code: Int32
    }

    /// `--backend`: the embedded mock backend for the specs, and the providers they name.
    private static func startEmbedded(
        _ command: MockCommand, paths: [String], registrations: [ClientRegistration], write: @Sendable (String) -> Void
    ) async -> Result<Started, StartFailure> {
        let run = Linter().lint(paths: paths)
        if run.hasErrors || run.flows.isEmpty {
            write(DiagnosticPrinter.text(run.diagnostics.filter { $0.severity == .error }, color: false))
            write("error: \(run.flows.isEmpty ? "no flow specs found" : "the specs have lint errors (flowspec lint)")\n")
            return .failure(StartFailure(code: CommandExit.badInput))
        }
        let mocks: EmbeddedMocks
        do {
            mocks = try await EmbeddedMocks.start(
                flows: run.flows, providers: run.providers, defects: Set(command.defects.compactMap(Defect.init(name:))),
                host: command.address.providerHost, providerPort: command.port, backendPort: command.backendPort)
        } catch {
            write("error: the mock servers could not start: \(error)\n")
            return .failure(StartFailure(code: CommandExit.unreachable))
        }
        var started = Started(providers: mocks.providers, backend: mocks.backend, stops: [{ await mocks.stop() }])
        for provider in mocks.providers {
            for registration in registrations where registration.applies(to: provider.profile.id) { await provider.addRegistration(registration) }
        }
        for (index, provider) in mocks.providers.enumerated() { started.lines += await providerLines(provider, listening: mocks.providerURLs[index]) }
        started.lines.append("mock backend (derived from \(run.flows.count) flow\(run.flows.count == 1 ? "" : "s")): \(mocks.backendURL.absoluteString)")
        for route in mocks.backend.routeDescriptions { started.lines.append("  \(route)") }
        for registration in mocks.registrations { started.lines.append("  its client registration: \(registration)") }
        if !command.defects.isEmpty { started.lines.append("  defects: \(command.defects.joined(separator: ", "))") }
        return .success(started)
    }

    /// One provider, by profile id, with the registrations given.
    private static func startProvider(
        _ command: MockCommand, paths: [String], registrations: [ClientRegistration], write: @Sendable (String) -> Void
    ) async -> Result<Started, StartFailure> {
        let catalog = ProviderCatalog.load(paths: paths.filter { FileManager.default.fileExists(atPath: $0) })
        if !catalog.diagnostics.isEmpty {
            write(DiagnosticPrinter.text(catalog.diagnostics, color: false))
        }
        guard let profile = catalog.profile(command.provider) else {
            write("error: unknown provider '\(command.provider)' (known: \(catalog.ids.joined(separator: ", ")))\n")
            return .failure(StartFailure(code: CommandExit.badInput))
        }
        let provider = MockProvider(profile: profile.resolved(variables: [:]), registrations: registrations)
        let url: URL
        do {
            url = try await provider.start(host: command.address.providerHost, port: command.port, advertised: command.address.advertisedURL)
        } catch {
            write("error: the mock provider could not start on \(command.address.providerHost):\(command.port): \(error)\n")
            return .failure(StartFailure(code: CommandExit.unreachable))
        }
        return .success(Started(providers: [provider], stops: [{ await provider.stop() }], lines: await providerLines(provider, listening: url)))
    }

    /// Writes each new request the servers record, every 200 ms, until cancelled.
    private static func log(_ started: Started, quiet: Bool, write: @Sendable (String) -> Void) async {
        var seen = Array(repeating: 0, count: started.providers.count)
        var backendSeen = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            if let backend = started.backend {
                let records = await backend.records()
                let fresh = records.filter { $0.sequence > backendSeen }
                if !quiet { for record in fresh { write(describe(record) + "\n") } }
                backendSeen = records.last?.sequence ?? backendSeen
            }
            for (index, provider) in started.providers.enumerated() {
                let records = await provider.records()
                if !quiet {
                    let prefix = started.providers.count > 1 ? "[\(provider.profile.id)] " : ""
                    for record in records.dropFirst(seen[index]) { write(prefix + describe(record) + "\n") }
                }
                seen[index] = records.count
            }
        }
    }

    static func providerLines(_ provider: MockProvider, listening: URL) async -> [String] {
        let base = await provider.baseURL?.absoluteString.trimmingSuffix("/") ?? listening.absoluteString.trimmingSuffix("/")
        let profile = provider.profile
        let endpoints = profile.endpoints
        var lines = [
            "mock provider \(profile.id) (\(profile.name)) listening on \(listening.absoluteString.trimmingSuffix("/"))",
            "  discovery: \(base)\(endpoints.discovery)",
            "  JWKS:      \(base)\(endpoints.jwks)",
            "  token:     \(base)\(endpoints.token)",
        ]
        if let revocation = endpoints.revocation { lines.append("  revoke:    \(base)\(revocation)") }
        if let userinfo = endpoints.userinfo { lines.append("  userinfo:  \(base)\(userinfo)") }
        lines.append("  authorize: \(base)\(endpoints.authorization)")
        lines.append("  ID tokens are issued by \(await provider.issuers.joined(separator: " or "))")
        return lines
    }

    /// One log line per request the mock backend answered: which step of which flow answered
    /// (and for which client), or why it was refused. Text from specs and requests is escaped.
    static func describe(_ record: MockBackend.Record) -> String {
        var line = "backend #\(record.sequence) \(record.method) \(TerminalText.escaped(record.path)) → \(record.status)"
        if let flow = record.flowID, let step = record.step {
            line += " · \(flow) step \(step)"
            if let title = record.stepTitle { line += " \"\(TerminalText.escaped(title))\"" }
            if let branch = record.branch { line += " — \(TerminalText.escaped(branch))" }
        }
        if let client = record.client { line += " · client \(client)" }
        if let reason = record.reason { line += " · \(TerminalText.escaped(reason))" }
        return line
    }

    /// One log line per request; secrets are already elided in the record.
    static func describe(_ record: RecordedRequest) -> String {
        var parts = ["#\(record.sequence)", record.method, record.path, "→ \(record.status)"]
        if let error = record.error { parts.append(error) }
        if let grant = record.grantType { parts.append("grant_type=\(grant)") }
        if let client = record.clientID { parts.append("client_id=\(client)") }
        if let secret = record.clientSecret {
            let method = secret.method ?? "client authentication"
            parts.append(secret.violations.isEmpty ? "\(method) ok" : "\(method): " + secret.violations.map(\.rawValue).joined(separator: ", "))
        }
        if record.endpoint == .attackerJWKS || record.endpoint == .attackerX5U { parts.append("(the backend followed a jku/x5u header!)") }
        return parts.joined(separator: " ")
    }
}
