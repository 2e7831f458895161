import FlowMocks
import FlowModel
import FlowParser
import Foundation
import JOSE

/// How many items run at the same time when `--concurrency` is not given.
///
/// Against the embedded backend every party (checker, mock provider, mock backend) is in this
/// process and an item is CPU work from start to end, but for the hand-offs between them: one
/// item more than there are cores keeps the cores busy through those, and more only makes each
/// item wait for the ones beside it. On two cores (docs/benchmarks.md): 2 at a time, median
/// token case 4 ms but 15 % fewer requests/s; 3, 5–6 ms at the requests/s of 4; 4, 7 ms. A backend
/// elsewhere is mostly waiting on the network, so a fixed few hide that wait.
public enum CheckConcurrency {
    public static let liveBackend = 4

    public static func `default`(liveBackend live: Bool) -> Int {
        live ? liveBackend : max(1, ProcessInfo.processInfo.activeProcessorCount) + 1
    }
}

/// Everything `flowspec check` was asked to do, once arguments are parsed and specs linted.
public struct CheckConfiguration: Sendable {
    /// The backend under test; nil = the embedded mock backend.
    public var backendURL: String?
    public var timeout: Double
    /// Items run at the same time (`CheckConcurrency`).
    public var concurrency: Int
    public var planner: Planner
    public var reports: [ReportTarget]
    /// Port of the (first) mock provider (0 = any free port); further providers take the
    /// following ports.
    public var providerPort: Int
    /// Address the mock providers bind (127.0.0.1 unless a backend elsewhere must reach them).
    public var providerHost: String
    /// Base URL the backend reaches the (first) provider at, when it is not where it listens
    /// (a backend in a container): it goes into the discovery document and `{{provider.url}}`.
    public var providerURL: URL?
    /// The backend's client registrations (live backends). Embedded runs generate their own.
    public var registrations: [ClientRegistration]
    /// Defects injected into the embedded mock backend.
    public var defects: [String]
    public var random: any RandomSource
    public var clock: @Sendable () -> Date
    /// Items per round against the embedded backend (`RunPlan`): whole flows, each round with
    /// fresh mocks, so a long run's memory is bounded by a round's.
    public var roundItems: Int = CheckConfiguration.defaultRoundItems
    public static let defaultRoundItems = 1000
    /// The parser the flows were read from their files with, when they were: a run of several
    /// rounds then parses each round's flows again as it starts instead of keeping them all.
    public var parser: SpecParser?

    public init(
        backendURL: String? = nil, timeout: Double = 10, concurrency: Int? = nil, planner: Planner = Planner(),
        reports: [ReportTarget] = [], providerPort: Int = 0, providerHost: String = "127.0.0.1", providerURL: URL? = nil,
        registrations: [ClientRegistration] = [], defects: [String] = [],
        random: any RandomSource = SystemRandom(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.backendURL = backendURL
        self.timeout = timeout
        self.concurrency = concurrency ?? CheckConcurrency.default(liveBackend: backendURL != nil)
        self.planner = planner
        self.reports = reports
        self.providerPort = providerPort
        self.providerHost = providerHost
        self.providerURL = providerURL
        self.registrations = registrations
        self.defects = defects
        self.random = random
        self.clock = clock
    }

    /// The one-registration form (`--registration` with a single object, or the flags).
    public var registration: ClientRegistration? {
        get { registrations.first }
        set { registrations = newValue.map { [$0] } ?? [] }
    }
}


/// Starts what a check needs (mock provider, embedded backend when no `--backend`), runs the
/// planned items, writes reports and returns the exit code.
public enum CheckSession {
    public static func run(
        flows: consuming [Flow], configuration: CheckConfiguration, console: Console, transport: (any BackendTransport)? = nil
    ) async -> (exitCode: Int32, report: CheckReport?) {
        var plan = planBuilder(configuration)
        plan.add(consume flows)
        return await run(plan: plan.finish(), configuration: configuration, console: console, transport: transport)
    }

    /// What plans a run of `configuration`: flows are added as they are read (`check` adds each
    /// batch the linter hands over), and the run is made of the finished plan.
    public static func planBuilder(_ configuration: CheckConfiguration) -> RunPlan.Builder {
        RunPlan.Builder(
            planner: configuration.planner, roundItems: configuration.backendURL == nil ? configuration.roundItems : nil,
            reparse: configuration.parser)
    }

    public static func run(
        plan: RunPlan, configuration: CheckConfiguration, console: Console, transport: (any BackendTransport)? = nil
    ) async -> (exitCode: Int32, report: CheckReport?) {
        if plan.total == 0 {
            console.line("error: no scenario or token case matches the given --flow/--case/--shard")
            if configuration.planner.shard == nil { return (CommandExit.badInput, nil) }
        }
        let transport = CountingTransport(transport ?? AHCTransport())
        let log = ResultLog()
        let startedAt = configuration.clock()
        let clock = ContinuousClock.now
        var backendURL: String?
        var done = 0
        for round in plan.rounds {
            let roundFlows: [Flow]
            do {
                roundFlows = try plan.flows(of: round)
            } catch {
                console.line("error: \(error)")
                await transport.shutdown()
                return (CommandExit.badInput, nil)
            }
            let items = plan.items(of: round, flows: roundFlows)
            log.expect(items.count)
            let outcome = await runRound(
                items, flows: roundFlows, configuration: configuration, console: console,
                transport: transport, log: log, done: done, total: plan.total, announce: backendURL == nil)
            switch outcome {
            case .success(let url):
                backendURL = backendURL ?? url
                // The round's results in report order, their headers on disk with the results.
                log.seal()
                if plan.rounds.count > 1 { releaseFreedMemory() }
            case .failure(let failure):
                await transport.shutdown()
                return (failure.exitCode, nil)
            }
            done += items.count
        }
        let elapsed = ContinuousClock.now - clock
        await transport.shutdown()
        if plan.rounds.count > 1 {
            console.line("checked in \(plan.rounds.count) rounds of at most \(configuration.roundItems) items, each against a fresh embedded backend and providers")
        }

        let report = CheckReport(
            tool: .init(version: FlowCheck.version), startedAt: ISO8601DateFormatter().string(from: startedAt),
            durationMS: elapsed.wholeMilliseconds,
            backend: .init(url: backendURL ?? "", embedded: configuration.backendURL == nil, defects: configuration.defects.sorted()),
            shard: configuration.planner.shard,
            flows: plan.flows,
            ordered: ReportResults(log: log))
        return publish(report, requestsSent: transport.requestsSent, configuration: configuration, console: console)
    }
}


extension CheckSession {
    /// What a run talks to: the providers per flow, the backend, and how to stop what was started.
    struct StartedServers {
        static let defaultClientID = "com.example.app"
        var providers: [String: FlowProvider]
        var backendURL: String
        var stop: @Sendable () async -> Void
        var clientID: String
    }

    /// A server could not start, or the input names something unknown: the run's exit code.
    struct StartFailure: Error {
        var exitCode: Int32
    }

    /// A live backend: one mock provider per profile the flows name, each verifying the client
    /// authentication of the registrations given for it.
    static func startProviders(for url: String, flows plannedFlows: [Flow], configuration: CheckConfiguration, console: Console) async throws(StartFailure) -> StartedServers {
        let catalog = configuration.planner.providers
        var providers: [String: FlowProvider] = [:]
        var started: [(profile: ProviderProfile, provider: MockProvider)] = []
        for flow in plannedFlows.sorted(by: { $0.id < $1.id }) {
            guard let profile = catalog.resolvedProfile(for: flow) else { continue }
            let provider: MockProvider
            if let existing = started.first(where: { $0.profile == profile }) {
                provider = existing.provider
            } else {
                provider = MockProvider(profile: profile, registrations: configuration.registrations, clock: configuration.clock, random: configuration.random)
                let index = started.count
                let port = configuration.providerPort == 0 ? 0 : configuration.providerPort + index
                let advertised = configuration.providerURL.map { Self.shifted($0, by: index) }
                let listening: URL
                do {
                    listening = try await provider.start(host: configuration.providerHost, port: port, advertised: advertised)
                } catch {
                    console.line("error: the mock provider \(profile.id) could not start on \(configuration.providerHost):\(port): \(error)")
                    for (_, other) in started { await other.stop() }
                    throw StartFailure(exitCode: CommandExit.unreachable)
                }
                started.append((profile, provider))
                await Self.describe(provider, listening: listening, console: console)
            }
            providers[flow.id] = FlowProvider(provider: provider, profile: profile, nonce: catalog.nonceTransform(for: flow))
            await Self.warnAboutRegistration(flow: flow, provider: provider, console: console)
        }
        let all = started.map(\.provider)
        console.line("backend: \(url)")
        return StartedServers(
            providers: providers, backendURL: url, stop: { for provider in all { await provider.stop() } },
            clientID: configuration.registrations.first?.clientID ?? StartedServers.defaultClientID)
    }

    /// The embedded mock backend, derived from the specs, with generated client credentials.
    static func startEmbeddedMocks(flows plannedFlows: [Flow], configuration: CheckConfiguration, console: Console, announce: Bool = true) async throws(StartFailure) -> StartedServers {
        let catalog = configuration.planner.providers
        var providers: [String: FlowProvider] = [:]
        var defects = Set<Defect>()
        for name in configuration.defects {
            guard let defect = Defect(name: name) else {
                console.line("error: unknown defect \(name); known: \(Defect.allCases.map(\.rawValue).joined(separator: ", "))")
                throw StartFailure(exitCode: CommandExit.badInput)
            }
            defects.insert(defect)
        }
        let mocks: EmbeddedMocks
        do {
            mocks = try await EmbeddedMocks.start(
                flows: plannedFlows, providers: catalog, defects: defects, host: configuration.providerHost,
                providerPort: configuration.providerPort, clock: configuration.clock, random: configuration.random)
        } catch {
            console.line("error: the embedded mock provider/backend could not start: \(error)")
            throw StartFailure(exitCode: CommandExit.unreachable)
        }
        // The backend's request log is for `flowspec mock`; a check never reads it.
        await mocks.backend.keepRecords(0)
        for flow in plannedFlows {
            guard let provider = mocks.provider(forFlow: flow.id), let profile = catalog.resolvedProfile(for: flow) else { continue }
            providers[flow.id] = FlowProvider(provider: provider, profile: profile, nonce: catalog.nonceTransform(for: flow))
        }
        let backendURL = mocks.backendURL.absoluteString
        if announce {
            console.line("backend: embedded mock at \(backendURL)" + (defects.isEmpty ? "" : " with defects: " + configuration.defects.sorted().joined(separator: ", ")))
        }
        return StartedServers(
            providers: providers, backendURL: backendURL, stop: { await mocks.stop() },
            clientID: mocks.registrations.first?.clientID ?? StartedServers.defaultClientID)
    }

    /// Prints the summary and writes the reports; the run's exit code.
    static func publish(_ report: CheckReport, requestsSent: Int, configuration: CheckConfiguration, console: Console) -> (exitCode: Int32, report: CheckReport?) {
        console.summary(report)
        let seconds = max(Double(report.durationMS) / 1000, 0.001)
        console.line(String(format: "%d requests to the backend in %.2f s (%.0f requests/s)", requestsSent, seconds, Double(requestsSent) / seconds))
        do {
            try report.write(to: configuration.reports)
            for target in configuration.reports { console.line("report: \(target)") }
        } catch {
            console.line("error: cannot write a report: \(error)")
            return (CommandExit.badInput, report)
        }
        return (report.exitCode, report)
    }

    /// `url` with its port moved up by `offset` (the n-th provider of a run).
    static func shifted(_ url: URL, by offset: Int) -> URL {
        guard offset > 0, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.port = (url.port ?? (url.scheme == "https" ? 443 : 80)) + offset
        return components.url ?? url
    }

    /// How many RSA keys the mock providers of a plan take from `RSAKeyPool`: three signing keys
    /// per provider that signs anything, its attacker key when a planned case needs one (S2, S7,
    /// S8, N2, P6), and one per key rotation (P5, P6).
    static func keysNeeded(items: [WorkItem], flows: [Flow], catalog: ProviderCatalog) -> Int {
        let flowsByID = Dictionary(flows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let signsWithAll = flowsSigningWithEveryKey(items)
        var profiles: [ProviderProfile: Bool] = [:]
        var attacker = false
        var rotations = 0
        for item in items {
            guard let flow = flowsByID[item.flowID], let profile = catalog.resolvedProfile(for: flow) else { continue }
            profiles[profile] = (profiles[profile] ?? false) || signsWithAll.contains(flow.id)
            guard case .tokenCase(let work) = item.payload else { continue }
            if ["P5", "P6"].contains(work.tokenCase.id) { rotations += 1 }
            if work.forgery?.needsAttackerKey == true { attacker = true }
        }
        // Three signing keys per provider when the plan signs with the 2nd and 3rd (P4), else
        // one and two decoys; one attacker key for the process; one key per rotation.
        return profiles.values.reduce(0) { $0 + ($1 ? 3 : 1) } + (attacker ? 1 : 0) + rotations
    }

    /// The flows whose plan signs with the 2nd and 3rd keys of the JWKS (P4).
    static func flowsSigningWithEveryKey(_ items: [WorkItem]) -> Set<String> {
        Set(items.compactMap { item in
            if case .tokenCase(let work) = item.payload, work.tokenCase.id == "P4" { item.flowID } else { nil }
        })
    }

    /// Every provider's signing keys (and the process's attacker key, when planned) are taken
    /// before the first item: a key still being made when the backend fetches the JWKS would
    /// count against the checked request's timeout — on a loaded machine a whole run of
    /// "timeout" verdicts — and a provider waiting for one inside its actor holds one of the
    /// cooperative pool's few threads. Rotation keys (P5, P6) are still made meanwhile.
    static func prepareKeys(of providers: [String: FlowProvider], items: [WorkItem]) async {
        var unique: [ObjectIdentifier: MockProvider] = [:]
        for flowProvider in providers.values { unique[ObjectIdentifier(flowProvider.provider)] = flowProvider.provider }
        var signing = 0
        for provider in unique.values { signing += await provider.poolKeysAtFirstUse }
        let attacker = items.contains { item in
            if case .tokenCase(let work) = item.payload { work.forgery?.needsAttackerKey == true } else { false }
        }
        await RSAKeyPool.shared.ready(atLeast: signing + (attacker ? 1 : 0))
        if attacker { _ = RSAKeyPool.shared.attacker() }
        for provider in unique.values { await provider.prepareKeys() }
    }

    /// Providers none of whose planned flows signs with the 2nd and 3rd keys serve decoys there.
    static func limitKeys(of providers: [String: FlowProvider], items: [WorkItem]) async {
        let signsWithAll = flowsSigningWithEveryKey(items)
        var needsAll: [ObjectIdentifier: (MockProvider, Bool)] = [:]
        for (flowID, flowProvider) in providers {
            let id = ObjectIdentifier(flowProvider.provider)
            needsAll[id] = (flowProvider.provider, (needsAll[id]?.1 ?? false) || signsWithAll.contains(flowID))
        }
        for (provider, all) in needsAll.values where !all { await provider.limitPrivateSigningKeys(to: 1) }
    }

    /// Where the backend must point its provider configuration, printed at start.
    static func describe(_ provider: MockProvider, listening: URL, console: Console) async {
        let profile = provider.profile
        let endpoints = profile.endpoints
        let base = await provider.baseURL?.absoluteString.trimmingSuffix("/") ?? listening.absoluteString
        console.line("mock provider \(profile.id) (\(profile.name)) listening on \(listening.absoluteString.trimmingSuffix("/")); point the backend at:")
        console.line("  discovery: \(base)\(endpoints.discovery)")
        console.line("  JWKS:      \(base)\(endpoints.jwks)")
        console.line("  token:     \(base)\(endpoints.token)")
        if let revocation = endpoints.revocation { console.line("  revoke:    \(base)\(revocation)") }
        console.line("  ID tokens are issued by \(await provider.issuers.joined(separator: " or "))")
    }

    /// Says, before the run, when the backend cannot authenticate at `provider` for `flow`:
    /// no registration at all, or none for the flow's `client_id`.
    static func warnAboutRegistration(flow: Flow, provider: MockProvider, console: Console) async {
        let registered = await provider.registeredClientIDs
        let profile = provider.profile
        let method = profile.clientAuthentication.map(\.rawValue).joined(separator: " or ")
        if registered.isEmpty {
            console.line("warning: no client registration for \(profile.id) (--registration): the backend's \(method) cannot be verified, so its calls to the provider fail")
            return
        }
        if let declared = flow.variables.first(where: { $0.name == "client_id" })?.value, !registered.contains(declared) {
            console.line("warning: flow \(flow.id) declares client_id \(declared), but the \(profile.id) registration is for \(registered.joined(separator: ", ")): its tokens' aud and the backend's calls will not match")
        }
        if let declared = flow.variables.first(where: { $0.name == "redirect_uri" })?.value,
            let clientID = flow.variables.first(where: { $0.name == "client_id" })?.value,
            let registeredURI = await provider.registration(for: clientID)?.redirectURI, registeredURI != declared
        {
            console.line("warning: flow \(flow.id) declares redirect_uri \(declared), but the registration says \(registeredURI): code exchanges will be refused")
        }
    }
}


