import FlowMocks
import FlowModel
import Foundation

/// Runs planned work items against a backend and collects a `CheckReport`.
///
/// Items are independent (each signs in afresh), so they run concurrently in a task group
/// bounded by `concurrency`. Items that change provider-wide state (key rotation, the token
/// endpoint's behaviour, attacker-URL fetch counting) run one at a time per provider once that
/// provider's other items are done, beside the other providers' items. The report's order
/// never depends on scheduling.
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
        let log = ResultLog(expected: items.count)
        await run(items: items, flows: flows, into: log)
        return ReportResults(log: log)
    }

    /// Runs `items`, appending their results to `log` as they come. `onResult` counts from
    /// `done` of `total` (a round of a longer run).
    func run(items: [WorkItem], flows: [Flow], into log: ResultLog, done alreadyDone: Int = 0, total: Int? = nil) async {
        let flowsByID = Dictionary(flows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let runner = ItemRunner(env: environment)
        // Positions, not copies: a 10× run's items are megabytes.
        let shared = items.indices.filter { !items[$0].isExclusive }
        let exclusive = items.indices.filter { items[$0].isExclusive }
        let total = total ?? items.count
        // Each result goes to the log as it finishes, from whichever task ran it (a queue's
        // too: a provider's exclusive items are hundreds in a long round, 7 KB each).
        let done = Locked(alreadyDone)
        let onResult = onResult
        let record: @Sendable (ItemResult) -> Void = { result in
            log.append(result)
            // Counted and shown in one step, so that progress lines come in order.
            done.withLock { done in
                done += 1
                onResult(result, done, total)
            }
        }
        // What an exclusive item changes belongs to its flow's provider: a provider's exclusive
        // items run one at a time, once none of its other items is left to start or finish —
        // beside the other providers' items, so that the run does not end on one queue alone.
        let queues = providerQueues(exclusive, of: items)
        var gate = QueueGate(queues: queues.map(\.provider), shared: shared.lazy.map { providerKey(of: items[$0]) })
        // What a task's end tells: the queue whose wait it shortens (shared items only).
        await withTaskGroup(of: Int?.self) { group in
            var running = 0  // tasks in flight, a queue counting as one
            func startQueue(_ index: Int) {
                running += 1
                let positions = queues[index].positions
                group.addTask {
                    for item in positions.lazy.map({ items[$0] }) {
                        guard let flow = flowsByID[item.flowID] else { continue }
                        record(await runner.run(item, flow: flow))
                    }
                    return nil
                }
            }
            var next = 0
            func add() {
                let item = items[shared[next]]
                next += 1
                running += 1
                let queue = gate.queue(of: providerKey(of: item))
                guard let flow = flowsByID[item.flowID] else {
                    group.addTask { queue }
                    return
                }
                group.addTask {
                    record(await runner.run(item, flow: flow))
                    return queue
                }
            }
            for index in gate.readyAtStart { startQueue(index) }
            while next < shared.count, running < concurrency { add() }
            while let queue = await group.next() {
                running -= 1
                if let queue, gate.finished(queue) { startQueue(queue) }
                while next < shared.count, running < concurrency { add() }
            }
        }
    }

    /// The mock provider an item's flow uses (nil: the flow has none).
    func providerKey(of item: WorkItem) -> ObjectIdentifier? {
        environment.providers[item.flowID].map { ObjectIdentifier($0.provider) }
    }

    /// The items at `positions` split by the mock provider their flow uses (flows without one
    /// together), each queue in plan order.
    func providerQueues(_ positions: [Int], of items: [WorkItem]) -> [(provider: ObjectIdentifier?, positions: [Int])] {
        var order: [ObjectIdentifier?] = []
        var queues: [ObjectIdentifier?: [Int]] = [:]
        for position in positions {
            let key = providerKey(of: items[position])
            if queues[key] == nil { order.append(key) }
            queues[key, default: []].append(position)
        }
        return order.map { ($0, queues[$0]!) }
    }
}

/// When each provider's queue of exclusive items may start: once no shared item of its provider
/// is left to start or finish (what the queue changes would otherwise reach them).
struct QueueGate<Provider: Hashable> {
    private let queueOfProvider: [Provider: Int]
    /// Shared items of each queue's provider not finished yet.
    private var waiting: [Int]

    /// `queues`: each queue's provider; `shared`: the provider of every shared item.
    init(queues: [Provider], shared: some Sequence<Provider>) {
        var index: [Provider: Int] = [:]
        for (position, provider) in queues.enumerated() { index[provider] = position }
        queueOfProvider = index
        var waiting = [Int](repeating: 0, count: queues.count)
        for provider in shared {
            if let queue = index[provider] { waiting[queue] += 1 }
        }
        self.waiting = waiting
    }

    /// The queues whose provider has no shared item at all.
    var readyAtStart: [Int] { waiting.indices.filter { waiting[$0] == 0 } }

    /// The queue a shared item of `provider` holds back (nil: that provider has none).
    func queue(of provider: Provider) -> Int? { queueOfProvider[provider] }

    /// A shared item holding back `queue` finished; true when it was the last one, so the queue
    /// may start now (true once per queue).
    mutating func finished(_ queue: Int) -> Bool {
        precondition(waiting[queue] > 0, "more shared items finished than were counted")
        waiting[queue] -= 1
        return waiting[queue] == 0
    }
}
