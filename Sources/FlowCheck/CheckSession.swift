import FlowMocks
import FlowModel
import Foundation
import JOSE

/// Everything `flowspec check` was asked to do, once arguments are parsed and specs linted.
public struct CheckConfiguration: Sendable {
    /// The backend under test; nil = the embedded mock backend.
    public var backendURL: String?
    public var timeout: Double
    public var concurrency: Int
    public var planner: Planner
    public var reports: [ReportTarget]
    /// Port of the mock provider (0 = any free port).
    public var providerPort: Int
    /// The backend's client registration (live backends). Embedded runs generate their own.
    public var registration: ClientRegistration?
    /// Defects injected into the embedded mock backend.
    public var defects: [String]
    public var random: any RandomSource
    public var clock: @Sendable () -> Date

    public init(
        backendURL: String? = nil, timeout: Double = 10, concurrency: Int = 4, planner: Planner = Planner(),
        reports: [ReportTarget] = [], providerPort: Int = 0, registration: ClientRegistration? = nil, defects: [String] = [],
        random: any RandomSource = SystemRandom(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.backendURL = backendURL
        self.timeout = timeout
        self.concurrency = concurrency
        self.planner = planner
        self.reports = reports
        self.providerPort = providerPort
        self.registration = registration
        self.defects = defects
        self.random = random
        self.clock = clock
    }
}

/// Exit codes of `flowspec check`.
public enum CheckExit {
    public static let passed: Int32 = 0
    public static let failures: Int32 = 1
    public static let badInput: Int32 = 2
    public static let unreachable: Int32 = 3
}

/// Starts what a check needs (mock provider, embedded backend when no `--backend`), runs the
/// planned items, writes reports and returns the exit code.
public enum CheckSession {
    public static func run(
        flows: [Flow], configuration: CheckConfiguration, console: Console, transport: (any BackendTransport)? = nil
    ) async -> (exitCode: Int32, report: CheckReport?) {
        let items = configuration.planner.plan(flows: flows)
        if items.isEmpty {
            console.line("error: no scenario or token case matches the given --flow/--case/--shard")
            if configuration.planner.shard == nil { return (CheckExit.badInput, nil) }
        }

        let provider: MockProvider
        let backendURL: String
        let stopServers: @Sendable () async -> Void
        var clientID = "com.example.app"
        if let url = configuration.backendURL {
            // A live backend: the provider verifies client_secret JWTs against the given registration.
            let registrations = configuration.registration.map { [$0] } ?? []
            provider = MockProvider(registrations: registrations, clock: configuration.clock, random: configuration.random)
            let providerURL: URL
            do {
                providerURL = try await provider.start(host: "127.0.0.1", port: configuration.providerPort)
            } catch {
                console.line("error: the mock provider could not start on 127.0.0.1:\(configuration.providerPort): \(error)")
                return (CheckExit.unreachable, nil)
            }
            backendURL = url
            stopServers = { await provider.stop() }
            if let registration = configuration.registration { clientID = registration.clientID }
            let base = providerURL.absoluteString.trimmingSuffix("/")
            console.line("backend: \(backendURL)")
            console.line("mock provider (point the backend's Apple base URL here):")
            console.line("  JWKS:   \(base)\(MockProvider.jwksPath)")
            console.line("  token:  \(base)\(MockProvider.tokenPath)")
            console.line("  revoke: \(base)\(MockProvider.revokePath)")
            console.line("  ID tokens are issued by \(FlowMocks.appleIssuer)")
            if registrations.isEmpty {
                console.line("warning: no client registration (--registration, or --client-id/--team-id/--key-id/--client-public-key): client_secret JWTs cannot be verified, so observed provider calls fail")
            }
        } else {
            // The embedded mock backend, derived from the specs, with a generated client key.
            var defects = Set<Defect>()
            for name in configuration.defects {
                guard let defect = Defect(name: name) else {
                    console.line("error: unknown defect \(name); known: \(Defect.allCases.map(\.rawValue).joined(separator: ", "))")
                    return (CheckExit.badInput, nil)
                }
                defects.insert(defect)
            }
            let mocks: EmbeddedMocks
            do {
                mocks = try await EmbeddedMocks.start(
                    flows: flows, defects: defects, providerPort: configuration.providerPort, clock: configuration.clock, random: configuration.random)
            } catch {
                console.line("error: the embedded mock provider/backend could not start: \(error)")
                return (CheckExit.unreachable, nil)
            }
            provider = mocks.provider
            backendURL = mocks.backendURL.absoluteString
            stopServers = { await mocks.stop() }
            clientID = mocks.registrations.first?.clientID ?? clientID
            console.line("backend: embedded mock at \(backendURL)" + (defects.isEmpty ? "" : " with defects: " + configuration.defects.sorted().joined(separator: ", ")))
        }

        let transport = CountingTransport(transport ?? AHCTransport())
        // Reachability: something must accept TCP connections there (any HTTP answer will do).
        if let failure = TCPProbe.check(url: backendURL, timeout: configuration.timeout) {
            console.line("error: backend unreachable at \(backendURL): \(failure)")
            await transport.shutdown()
            await stopServers()
            return (CheckExit.unreachable, nil)
        }

        let startedAt = configuration.clock()
        let clock = ContinuousClock.now
        let environment = RunEnvironment(
            backendURL: backendURL, transport: transport, provider: provider,
            defaultClientID: clientID,
            timeout: configuration.timeout, observeWait: min(configuration.timeout, 2), random: configuration.random)
        let checker = Checker(environment: environment, concurrency: configuration.concurrency) { result, done, total in
            console.progress(result, done: done, total: total)
        }
        let results = await checker.run(items: items, flows: flows)
        let elapsed = ContinuousClock.now - clock
        await transport.shutdown()
        await stopServers()

        let planned = Set(items.map(\.flowID))
        let report = CheckReport(
            tool: .init(version: FlowCheck.version), startedAt: ISO8601DateFormatter().string(from: startedAt),
            durationMS: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            backend: .init(url: backendURL, embedded: configuration.backendURL == nil, defects: configuration.defects.sorted()),
            shard: configuration.planner.shard,
            flows: flows.filter { planned.contains($0.id) }.map { .init(id: $0.id, title: $0.title, file: $0.file) },
            results: results)
        console.summary(report)
        let seconds = max(Double(report.durationMS) / 1000, 0.001)
        console.line(String(format: "%d requests to the backend in %.2f s (%.0f requests/s)", transport.requestsSent, seconds, Double(transport.requestsSent) / seconds))
        do {
            try report.write(to: configuration.reports)
            for target in configuration.reports { console.line("report: \(target)") }
        } catch {
            console.line("error: cannot write a report: \(error)")
            return (CheckExit.badInput, report)
        }
        return (report.exitCode, report)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix), !suffix.isEmpty { text.removeLast(suffix.count) }
        return text
    }
}
