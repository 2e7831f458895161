import Testing
import TestSupport
@testable import FlowCheck

/// A provider's exclusive items (key rotation, the token endpoint's behaviour) change what every
/// other item of that provider would see: `QueueGate` lets their queue start only once none of
/// the provider's shared items is left, and lets a provider without shared items start at once.
@Suite struct QueueGateTests {
    @Test func aQueueStartsWhenItsProvidersLastSharedItemFinishes() {
        // Shared items of apple (2), google (1) and of flows without a provider; queues of
        // apple, google and microsoft (which has no shared item).
        var gate = QueueGate<String?>(queues: ["apple", "google", "microsoft"], shared: ["apple", "google", "apple", nil])
        #expect(gate.readyAtStart == [2])
        #expect(gate.queue(of: "apple") == 0)
        #expect(gate.queue(of: nil) == nil)
        #expect(gate.finished(0) == false)
        #expect(gate.finished(1) == true)
        #expect(gate.finished(0) == true)
    }

    /// Random providers, items and completion orders: every queue starts exactly once, and only
    /// after the last shared item of its own provider finished.
    @Test(arguments: 1...200) func noQueueStartsBeforeItsProvidersItemsAreDone(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let providers: [Int?] = [nil, 0, 1, 2, 3]
        let queueProviders = providers.filter { _ in random.next() % 2 == 0 }
        let shared = (0..<Int(random.next() % 30)).map { _ in providers[Int(random.next() % UInt64(providers.count))] }
        var gate = QueueGate(queues: queueProviders, shared: shared)
        var started = Set(gate.readyAtStart)
        for queue in started {
            #expect(!shared.contains(queueProviders[queue]), "queue of \(String(describing: queueProviders[queue])) started with its items pending")
        }
        var pending = shared.shuffled(using: &random)
        while let provider = pending.popLast() {
            guard let queue = gate.queue(of: provider) else {
                #expect(!queueProviders.contains(provider))
                continue
            }
            #expect(!started.contains(queue), "an item of a started queue's provider was still running")
            if gate.finished(queue) {
                #expect(!pending.contains(provider), "queue started before its provider's last item")
                started.insert(queue)
            } else {
                #expect(pending.contains(provider))
            }
        }
        #expect(started == Set(queueProviders.indices), "every queue starts once")
    }
}
