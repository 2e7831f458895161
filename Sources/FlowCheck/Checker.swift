import FlowMocks
import FlowModel
import Foundation

/// Runs planned work items against a backend and collects a `CheckReport`.
///
/// Items are independent (each signs in afresh), so they run concurrently in a task group
/// bounded by `concurrency`. Items that change provider-wide state (key rotation, the token
/// endpoint's behaviour, attacker-URL fetch counting) run one at a time afterwards. The
/// report's order never depends on scheduling.
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
        var results: [ItemResult] = []
        results.reserveCapacity(total)
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
                onResult(result, results.count, total)
                if next < shared.count { add() }
            }
        }
        for item in exclusive {
            guard let flow = flowsByID[item.flowID] else { continue }
            let result = await runner.run(item, flow: flow)
            results.append(result)
            onResult(result, results.count, total)
        }
        return BaselineGate.apply(results).sorted(by: ResultOrder.precedes)
    }
}
