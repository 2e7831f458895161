import FlowMocks
import FlowModel
import Foundation

/// Runs planned work items against a backend and collects a `CheckReport`.
///
/// Items are independent (each signs in afresh), so they run concurrently in a task group
/// bounded by `concurrency`. Items that change provider-wide state (key rotation, the token
/// endpoint's behaviour, attacker-URL fetch counting) run afterwards, one at a time per
/// provider (different providers side by side). The report's order never depends on scheduling.
public struct Checker: Sendable {
    public var environment: RunEnvironment
    public var concurrency: Int
    /// Called as each item finishes (for progress output), from any task.
    public var onResult: @Sendable (ItemResult, _ done: Int, _ total: Int) -> Void

    public init(environment: RunEnvironment, concurrency: Int = 4, onResult: @escaping @Sendable (ItemResult, Int, Int) -> Void = { _, _, _ in }) {
        self.environment = environment
        self.concurrency = max(1, concurrency)
        self.onResult = onResult
    }

    public func run(items: [WorkItem], flows: [Flow]) async -> [ItemResult] {
        let flowsByID = Dictionary(flows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let runner = ItemRunner(env: environment)
        let shared = items.filter { !$0.isExclusive }
        let exclusive = items.filter(\.isExclusive)
        let total = items.count
        var results = HeldEvidenceRelease(capacity: total)
        let onResult = onResult
        await withTaskGroup(of: ItemResult.self) { group in
            var next = 0
            func add() {
                let item = shared[next]
                next += 1
                guard let flow = flowsByID[item.flowID] else { return }
                group.addTask { await runner.run(item, flow: flow) }
            }
            while next < shared.count, next < concurrency { add() }
            while let result = await group.next() {
                results.append(result)
                onResult(result, results.items.count, total)
                if next < shared.count { add() }
            }
        }
        // What an exclusive item changes belongs to its flow's provider: the items of one
        // provider run one at a time, those of different providers side by side.
        await withTaskGroup(of: [ItemResult].self) { group in
            for queue in Self.providerQueues(exclusive, environment: environment) {
                group.addTask {
                    var done: [ItemResult] = []
                    for item in queue {
                        guard let flow = flowsByID[item.flowID] else { continue }
                        done.append(await runner.run(item, flow: flow))
                    }
                    return done
                }
            }
            for await queue in group {
                for result in queue {
                    results.append(result)
                    onResult(result, results.items.count, total)
                }
            }
        }
        return BaselineGate.apply(results.items).sorted(by: ResultOrder.precedes)
    }

    /// `items` split by the mock provider their flow uses (flows without one together), each
    /// queue in plan order.
    static func providerQueues(_ items: [WorkItem], environment: RunEnvironment) -> [[WorkItem]] {
        var order: [ObjectIdentifier?] = []
        var queues: [ObjectIdentifier?: [WorkItem]] = [:]
        for item in items {
            let key = environment.providers[item.flowID].map { ObjectIdentifier($0.provider) }
            if queues[key] == nil { order.append(key) }
            queues[key, default: []].append(item)
        }
        return order.map { queues[$0]! }
    }
}

/// The results of a run as they arrive, each passed reject case's provider calls (held for the
/// baseline gate) let go as soon as its rule's baseline (`P1`) is known not to fail: the gate
/// can then never use them, and a run's memory stays flat instead of keeping a few KB of
/// request evidence per passed case until the end.
struct HeldEvidenceRelease {
    private(set) var items: [ItemResult] = []
    /// Baselines seen with a verdict that does not fail the run.
    private var settled: Set<String> = []
    /// Baseline id → positions of results still holding provider calls for it.
    private var holding: [String: [Int]] = [:]

    init(capacity: Int) { items.reserveCapacity(capacity) }

    mutating func append(_ result: ItemResult) {
        var result = result
        if let info = result.tokenCase {
            let baseline = Planner.baselineID(flowID: result.flowID, rule: info.rule)
            if info.caseID == "P1", !result.verdict.failsRun {
                settled.insert(baseline)
                for position in holding.removeValue(forKey: baseline) ?? [] { items[position].heldProviderRequests = nil }
            } else if result.heldProviderRequests != nil {
                if settled.contains(baseline) {
                    result.heldProviderRequests = nil
                } else {
                    holding[baseline, default: []].append(items.count)
                }
            }
        }
        items.append(result)
    }
}
