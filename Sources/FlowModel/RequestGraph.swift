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
        let requests = Set(flow.steps.filter(\.hasExchange).map(\.number))
        func targets(_ transitions: [StateMachine.Transition]) -> [Int] {
            transitions.compactMap { if case .step(let target) = $0.target { target } else { nil } }
        }
        // F(t): the request steps a client reaches from step t through steps it does not send
        // (t itself when it is one), one union per strongly connected component of the
        // non-request steps, in reverse topological order: linear in steps and transitions.
        let through = machine.states.filter { !requests.contains($0) }
        let components = Self.components(of: through) { state in targets(machine.transitions(from: state)).filter { !requests.contains($0) && machine.isState($0) } }
        var component = StateTable<Int>(states: machine.states)
        for (index, members) in components.enumerated() { for member in members { component[member] = index } }
        var reached: [Set<Int>] = Array(repeating: [], count: components.count)
        for (index, members) in components.enumerated() {
            var set = Set<Int>()
            for member in members {
                for target in targets(machine.transitions(from: member)) {
                    if requests.contains(target) {
                        set.insert(target)
                    } else if let other = component[target], other != index {
                        set.formUnion(reached[other])
                    }
                }
            }
            reached[index] = set
        }
        func reachable(from starts: [Int]) -> Set<Int> {
            var found = Set<Int>()
            for start in starts {
                if requests.contains(start) {
                    found.insert(start)
                } else if let index = component[start] {
                    found.formUnion(reached[index])
                }
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

    /// Strongly connected components (Tarjan, iterative: no recursion depth on long chains),
    /// each emitted after every component reachable from it. `nodes` ascend (states of a
    /// machine), so their numbers and links are kept in `StateTable`s.
    static func components(of nodes: [Int], successors: (Int) -> [Int]) -> [[Int]] {
        var index = StateTable<Int>(states: nodes)
        var lowlink = StateTable<Int>(states: nodes)
        var onStack = StateTable<Bool>(states: nodes)
        var stack: [Int] = []
        var result: [[Int]] = []
        var counter = 0
        for root in nodes where index[root] == nil {
            var work: [(node: Int, successors: [Int], position: Int)] = []
            func push(_ node: Int) {
                index[node] = counter
                lowlink[node] = counter
                counter += 1
                stack.append(node)
                onStack[node] = true
                work.append((node, successors(node).filter { StateTable<Int>.position(of: $0, in: nodes) != nil }, 0))
            }
            push(root)
            while !work.isEmpty {
                let top = work.count - 1
                let node = work[top].node
                if work[top].position < work[top].successors.count {
                    let next = work[top].successors[work[top].position]
                    work[top].position += 1
                    if index[next] == nil {
                        push(next)
                    } else if onStack[next] == true {
                        lowlink[node] = min(lowlink[node]!, index[next]!)
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node { lowlink[parent] = min(lowlink[parent]!, lowlink[node]!) }
                if lowlink[node] == index[node] {
                    var component: [Int] = []
                    while let member = stack.popLast() {
                        onStack[member] = nil
                        component.append(member)
                        if member == node { break }
                    }
                    result.append(component)
                }
            }
        }
        return result
    }
}
