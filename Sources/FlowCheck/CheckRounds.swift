import FlowMocks
import FlowModel
import FlowParser
import Foundation

/// What a run checks, in rounds: whole flows in plan order (by id), each round at most
/// `roundItems` items (a flow with more is a round of its own). Against the embedded backend
/// each round has its own mock backend and providers, stopped before the next round starts, so
/// that what they keep per sign-in (accounts, sessions, replay caches, recorded calls, rotated
/// keys) is bounded by a round instead of growing with the run. A round is what `check --flow`
/// of its flows would run: every item signs in afresh, and an item's baseline (`P1`) is in its
/// own flow. Without a shard each round's items are planned when the round starts (the plan of
/// a whole 10× run is megabytes); a shard's slice is chosen over the whole plan, so a sharded
/// run plans once.
public struct RunPlan: Sendable {
    /// The flows with planned items, by id (plan order).
    let flows: [CheckReport.FlowInfo]
    /// Rounds as ranges of `flows`; at least one, empty when nothing is planned (the servers
    /// still start, and a live backend is still probed).
    let rounds: [Range<Int>]
    let total: Int
    private let planner: Planner
    /// The whole plan, when it cannot be made round by round (a shard) or fits one round.
    private let planned: [WorkItem]?
    private let source: Source

    /// Where a round's parsed flows come from.
    private enum Source: Sendable {
        /// Kept from the start (one round, or flows that are not on disk).
        case kept([Flow])
        /// Parsed again from their files when the round starts, each compared with the flow
        /// that was linted by its hash (a run's parsed specs are about 30 KB a flow).
        case files(parser: SpecParser, hashes: [Int])
    }

    /// `roundItems` nil: one round (a live backend: its providers must stay where it was
    /// pointed). `reparse`: the flows were parsed from their files by `parser`, which may
    /// parse them again for each round instead of keeping them for the whole run.
    init(flows: [Flow], planner: Planner, roundItems: Int?, reparse parser: SpecParser? = nil) {
        var builder = Builder(planner: planner, roundItems: roundItems, reparse: parser)
        builder.add(flows)
        self = builder.finish()
    }

    /// Plans a run from flows given a batch at a time (as `Linter` hands them over), keeping of
    /// each only what the plan needs once the run cannot be one round: its id, title, file,
    /// hash and item count. The flows and their items are kept while they fit one round, and
    /// always when every item is needed at once (a shard is sliced over the whole plan; a live
    /// backend has one round).
    public struct Builder {
        private let planner: Planner
        private let limit: Int
        private let parser: SpecParser?
        private var added: [(info: CheckReport.FlowInfo, hash: Int)] = []
        private var counts: [String: Int] = [:]
        private var counted = 0
        /// Each flow's items, while kept.
        private var items: [String: [WorkItem]]? = [:]
        /// The flows, while kept.
        private var kept: [Flow]? = []

        public init(planner: Planner, roundItems: Int?, reparse parser: SpecParser? = nil) {
            self.planner = planner
            limit = max(1, roundItems ?? .max)
            self.parser = parser
        }

        public mutating func add(_ batch: [Flow]) {
            // Planned flow by flow without the shard: a shard's slice is taken over the whole
            // plan at the end. Each flow's items (a rule's baseline included) are its own.
            var unsharded = planner
            unsharded.shard = nil
            for flow in batch {
                let planned = unsharded.plan(flows: [flow])
                counts[flow.id] = planned.count
                counted += planned.count
                added.append((CheckReport.FlowInfo(id: flow.id, title: flow.title, file: flow.file), parser == nil ? 0 : flow.hashValue))
                if planner.shard != nil || counted <= limit { items?[flow.id] = planned } else { items = nil }
            }
            if parser != nil, counted > limit { kept = nil } else { kept? += batch }
        }

        public func finish() -> RunPlan {
            // The whole plan is flow after flow, by id.
            var planned = items.map { byID in byID.keys.sorted().flatMap { byID[$0]! } }
            var counts = counts
            if let shard = planner.shard, let all = planned {
                let slice = Planner.slice(all, shard: shard)
                counts = counts.mapValues { _ in 0 }
                for item in slice { counts[item.flowID, default: 0] += 1 }
                planned = slice
            }
            let order = added.indices.filter { (counts[added[$0].info.id] ?? 0) > 0 }.sorted { added[$0].info.id < added[$1].info.id }
            var rounds: [Range<Int>] = []
            var start = 0
            var size = 0
            for (position, index) in order.enumerated() {
                let count = counts[added[index].info.id] ?? 0
                if position > start, size + count > limit {
                    rounds.append(start..<position)
                    (start, size) = (position, 0)
                }
                size += count
            }
            rounds.append(start..<order.count)
            let source: Source
            if let kept, rounds.count == 1 || parser == nil {
                let byID = Dictionary(kept.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                source = .kept(order.map { byID[added[$0].info.id]! })
            } else {
                source = .files(parser: parser!, hashes: order.map { added[$0].hash })
            }
            return RunPlan(
                flows: order.map { added[$0].info }, rounds: rounds, total: order.reduce(0) { $0 + counts[added[$1].info.id]! },
                planner: planner, planned: planned, source: source)
        }
    }

    private init(flows: [CheckReport.FlowInfo], rounds: [Range<Int>], total: Int, planner: Planner, planned: [WorkItem]?, source: Source) {
        self.flows = flows
        self.rounds = rounds
        self.total = total
        self.planner = planner
        self.planned = planned
        self.source = source
    }

    /// A spec that was linted and planned but reads differently when its round starts.
    struct SpecChanged: Error, CustomStringConvertible {
        var file: String
        var description: String { "\(file) changed while the check ran: check it again" }
    }

    /// The round's flows, as they were linted.
    func flows(of round: Range<Int>) throws(SpecChanged) -> [Flow] {
        switch source {
        case .kept(let flows):
            return Array(flows[round])
        case .files(let parser, let hashes):
            let results = parser.parseAll(flows[round].map { (path: $0.file, bytes: nil) })
            var parsed: [Flow] = []
            for (position, result) in zip(round, results) {
                guard let flow = result.flow, flow.id == flows[position].id, flow.hashValue == hashes[position] else {
                    throw SpecChanged(file: flows[position].file)
                }
                parsed.append(flow)
            }
            return parsed
        }
    }

    /// The round's items, in plan order.
    func items(of round: Range<Int>, flows roundFlows: [Flow]) -> [WorkItem] {
        guard let planned else { return planner.plan(flows: roundFlows) }
        if rounds.count == 1 { return planned }
        let ids = Set(roundFlows.map(\.id))
        return planned.filter { ids.contains($0.flowID) }
    }
}

extension CheckSession {
    /// Starts a round's servers, runs its items into `log` and stops the servers. The backend's
    /// URL, or the exit code of a server that could not start or a backend out of reach.
    /// `announce`: print where the backend and providers are (the first round only).
    static func runRound(
        _ items: [WorkItem], flows roundFlows: [Flow], configuration: CheckConfiguration, console: Console,
        transport: CountingTransport, log: ResultLog, done: Int, total: Int, announce: Bool
    ) async -> Result<String, StartFailure> {
        let catalog = configuration.planner.providers
        // The RSA keys this round will need, started now on every core (the servers start and
        // the first items run meanwhile).
        RSAKeyPool.shared.prefetch(Self.keysNeeded(items: items, flows: roundFlows, catalog: catalog))
        let servers: StartedServers
        do {
            if let url = configuration.backendURL {
                servers = try await startProviders(for: url, flows: roundFlows, configuration: configuration, console: console)
            } else {
                servers = try await startEmbeddedMocks(flows: roundFlows, configuration: configuration, console: console, announce: announce)
            }
        } catch {
            return .failure(error)
        }
        await limitKeys(of: servers.providers, items: items)
        await prepareKeys(of: servers.providers, items: items)
        // Reachability: something must accept TCP connections there (any HTTP answer will do).
        if let failure = await TCPProbe.check(url: servers.backendURL, timeout: configuration.timeout) {
            console.line("error: backend unreachable at \(servers.backendURL): \(failure)")
            await servers.stop()
            return .failure(StartFailure(exitCode: CommandExit.unreachable))
        }
        let environment = RunEnvironment(
            backendURL: servers.backendURL, transport: transport, providers: servers.providers,
            defaultClientID: servers.clientID,
            timeout: configuration.timeout, observeWait: min(configuration.timeout, 2), random: configuration.random)
        let checker = Checker(environment: environment, concurrency: configuration.concurrency) { result, done, total in
            console.progress(result, done: done, total: total)
        }
        await checker.run(items: items, flows: roundFlows, into: log, done: done, total: total)
        await servers.stop()
        return .success(servers.backendURL)
    }

    /// Gives the pages malloc holds free back to the system (glibc's `malloc_trim`, looked up
    /// at run time: Swift's Glibc module does not declare it). Between rounds, what a round
    /// freed is otherwise kept by the allocator's arenas, split by what the run still holds (a
    /// header per result): flows/ ×30 peaks at 15.6 MiB of anonymous memory instead of 17.2–18.4.
    static func releaseFreedMemory() {
        #if os(Linux)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
