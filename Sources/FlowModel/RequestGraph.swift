/// Which client requests can come next in a flow: from the start, and after each way out of a
/// step. The embedded mock backend answers a client among these steps only (a second check-out
/// of the same cart is the spec's later "check out again" step, not the first one), and lint
/// warns when two of them could take the same request (FS409).
///
/// A request step is one with an `http` block. From a step, the next request steps are found
/// along its transitions through steps the client does not send (UI, provider, internal).
public struct RequestGraph: Sendable, Hashable {
    /// A way out of a step: by the branch whose own request or expectation answered, or (nil)
    /// by the step's own expectation — then along the branches that have neither.
    public struct Exit: Hashable, Sendable {
        public var step: Int
        public var alternate: Int?

        public init(step: Int, alternate: Int?) {
            self.step = step
            self.alternate = alternate
        }
    }

    /// The first request steps of the flow.
    public let entry: Set<Int>
    /// The request steps reachable after each exit.
    public let next: [Exit: Set<Int>]

    public init(flow: Flow, machine: StateMachine? = nil) {
        let machine = machine ?? StateMachine(flow: flow)
        let requests = Set(flow.steps.filter { $0.exchange != nil }.map(\.number))
        func targets(_ transitions: [StateMachine.Transition]) -> [Int] {
            transitions.compactMap { if case .step(let target) = $0.target { target } else { nil } }
        }
        func reachable(from starts: [Int]) -> Set<Int> {
            var found = Set<Int>()
            var seen = Set<Int>()
            var queue = starts
            while let number = queue.popLast() {
                guard seen.insert(number).inserted else { continue }
                if requests.contains(number) {
                    found.insert(number)
                    continue
                }
                queue += targets(machine.transitions(from: number))
            }
            return found
        }
        var next: [Exit: Set<Int>] = [:]
        for step in flow.steps where next[Exit(step: step.number, alternate: nil)] == nil {
            let transitions = machine.transitions(from: step.number)
            let shared = transitions.filter { transition in
                guard let index = transition.alternateIndex, step.alternates.indices.contains(index) else { return true }
                return step.alternates[index].request == nil && step.alternates[index].expectation == nil
            }
            next[Exit(step: step.number, alternate: nil)] = reachable(from: targets(shared.isEmpty ? transitions : shared))
            for transition in transitions {
                guard let index = transition.alternateIndex else { continue }
                next[Exit(step: step.number, alternate: index)] = reachable(from: targets([transition]))
            }
        }
        self.entry = machine.start.map { reachable(from: [$0]) } ?? []
        self.next = next
    }
}
