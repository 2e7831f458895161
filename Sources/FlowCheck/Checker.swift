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

    /// Runs `items`; their results in report order, kept on disk as they come (`ResultLog`).
    public func run(items: [WorkItem], flows: [Flow]) async -> ReportResults {
        let flowsByID = Dictionary(flows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let runner = ItemRunner(env: environment)
        // Positions, not copies: a 10× run's items are megabytes.
        let shared = items.indices.filter { !items[$0].isExclusive }
        let exclusive = items.indices.filter { items[$0].isExclusive }
        let total = items.count
        let log = ResultLog(expected: total)
        var done = 0
        let onResult = onResult
        await withTaskGroup(of: ItemResult.self) { group in
            var next = 0
            func add() {
                let item = items[shared[next]]
                next += 1
                guard let flow = flowsByID[item.flowID] else { return }
                group.addTask { await runner.run(item, flow: flow) }
            }
            while next < shared.count, next < concurrency { add() }
            while let result = await group.next() {
                log.append(result)
                done += 1
                onResult(result, done, total)
                if next < shared.count { add() }
            }
        }
        // What an exclusive item changes belongs to its flow's provider: the items of one
        // provider run one at a time, those of different providers side by side.
        await withTaskGroup(of: [ItemResult].self) { group in
            for queue in Self.providerQueues(exclusive, of: items, environment: environment) {
                group.addTask {
                    var finished: [ItemResult] = []
                    for item in queue.lazy.map({ items[$0] }) {
                        guard let flow = flowsByID[item.flowID] else { continue }
                        finished.append(await runner.run(item, flow: flow))
                    }
                    return finished
                }
            }
            for await queue in group {
                for result in queue {
                    log.append(result)
                    done += 1
                    onResult(result, done, total)
                }
            }
        }
        return ReportResults(log: log)
    }

    /// The items at `positions` split by the mock provider their flow uses (flows without one
    /// together), each queue in plan order.
    static func providerQueues(_ positions: [Int], of items: [WorkItem], environment: RunEnvironment) -> [[Int]] {
        var order: [ObjectIdentifier?] = []
        var queues: [ObjectIdentifier?: [Int]] = [:]
        for position in positions {
            let key = environment.providers[items[position].flowID].map { ObjectIdentifier($0.provider) }
            if queues[key] == nil { order.append(key) }
            queues[key, default: []].append(position)
        }
        return order.map { queues[$0]! }
    }
}
