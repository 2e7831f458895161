/// The flow as a state machine: states are step numbers, transitions come from alternates or
/// from "go to the next step", and paths end in outcomes.
///
/// Built from a `Flow` without judging it: dangling targets and duplicates are kept as they
/// are so the linter can report them. For a flow that lints clean it is a well-formed machine.
public struct StateMachine: Sendable, Hashable {
    /// One edge: from a step, along an alternate (or the implicit "next"), to a target.
    public struct Transition: Hashable, Sendable, Codable {
        public var from: Int
        /// The alternate's label; nil for the implicit transition to the next step.
        public var label: String?
        public var target: Target
        /// Index in the step's `alternates`, nil for the implicit transition.
        public var alternateIndex: Int?

        public init(from: Int, label: String?, target: Target, alternateIndex: Int?) {
            self.from = from
            self.label = label
            self.target = target
            self.alternateIndex = alternateIndex
        }
    }

    /// Step numbers in ascending order, each once (the first definition wins for duplicates).
    public let states: [Int]
    /// The first step (lowest number), nil for a flow without steps.
    public let start: Int?
    /// The transitions of each state, by its position in `states`.
    private let outgoing: [[Transition]]

    public init(flow: Flow) {
        // The first step of each number, in number order: a flow's steps are usually written in
        // ascending order already, and then neither a set nor a sort is needed.
        let ascending = zip(flow.steps, flow.steps.dropFirst()).allSatisfy { $0.number < $1.number }
        var firstSteps = flow.steps
        if !ascending {
            var seen = Set<Int>()
            firstSteps = flow.steps.filter { seen.insert($0.number).inserted }.sorted { $0.number < $1.number }
        }
        let numbers = firstSteps.map(\.number)
        states = numbers
        start = numbers.first
        // The implicit "next" of each step is the following number (numbers are sorted, unique).
        outgoing = firstSteps.enumerated().map { index, step in
            if step.alternates.isEmpty {
                let target: Target = index + 1 < numbers.count ? .step(numbers[index + 1]) : .end(.success)
                return [Transition(from: step.number, label: nil, target: target, alternateIndex: nil)]
            }
            return step.alternates.enumerated().map { index, alternate in
                Transition(from: step.number, label: alternate.label, target: alternate.target, alternateIndex: index)
            }
        }
    }

    /// Whether `number` is a state (a step of the flow).
    public func isState(_ number: Int) -> Bool { StateTable<Int>.position(of: number, in: states) != nil }

    public func transitions(from state: Int) -> [Transition] {
        StateTable<Int>.position(of: state, in: states).map { outgoing[$0] } ?? []
    }

    /// Every transition, ordered by source step then alternate order.
    public var allTransitions: [Transition] { states.flatMap { transitions(from: $0) } }

    /// Outcomes any path can end with, sorted.
    public var outcomes: [Outcome] {
        Array(Set(allTransitions.compactMap { transition -> Outcome? in
            if case .end(let outcome) = transition.target { return outcome }
            return nil
        })).sorted()
    }

    /// States reachable from the start (including it).
    public func reachableStates() -> Set<Int> {
        guard let start else { return [] }
        var seen: Set<Int> = [start]
        var queue = [start]
        while let state = queue.popLast() {
            for transition in transitions(from: state) {
                if case .step(let next) = transition.target, isState(next), seen.insert(next).inserted {
                    queue.append(next)
                }
            }
        }
        return seen
    }

    /// States from which some path reaches an end: backwards from the states with an end
    /// transition, over incoming edges (linear in states and transitions).
    public func statesReachingEnd() -> Set<Int> {
        var good = Set<Int>()
        var queue: [Int] = []
        for state in states where transitions(from: state).contains(where: { if case .end = $0.target { true } else { false } }) {
            good.insert(state)
            queue.append(state)
        }
        let incoming = incomingEdges()
        while let state = queue.popLast() {
            for source in incoming[state] ?? [] where good.insert(source).inserted { queue.append(source) }
        }
        return good
    }

    /// States from which `target` can be reached in one or more transitions.
    public func predecessors(of target: Int) -> Set<Int> {
        predecessors(of: target, incoming: incomingEdges())
    }

    /// `predecessors(of:)` over edges made once (`incomingEdges()`) for many targets.
    public func predecessors(of target: Int, incoming: StateTable<[Int]>) -> Set<Int> {
        var result = Set<Int>()
        var queue = [target]
        while let state = queue.popLast() {
            for source in incoming[state] ?? [] where result.insert(source).inserted { queue.append(source) }
        }
        return result
    }

    /// Step → the states with a transition to it.
    public func incomingEdges() -> StateTable<[Int]> {
        var incoming = StateTable<[Int]>(states: states)
        for state in states {
            for transition in transitions(from: state) {
                if case .step(let next) = transition.target { incoming[next, default: []].append(state) }
            }
        }
        return incoming
    }

    // MARK: Scenarios

    /// Paths the checker runs: every transition is taken at least once, each path is as short
    /// as possible (so loops are entered once and left, never unrolled), and the result is
    /// deterministic. Transitions that cannot be part of a complete path (unreachable, or
    /// leading nowhere) are skipped; lint reports those.
    public func scenarios(flowID: String) -> [Scenario] {
        guard let start else { return [] }
        var paths: [[Transition]] = []
        var covered = Set<Transition>()
        for transition in allTransitions where !covered.contains(transition) {
            guard let prefix = shortestPath(from: start, to: transition.from),
                  let suffix = completion(after: transition) else { continue }
            let path = prefix + [transition] + suffix
            if paths.contains(path) { continue }
            paths.append(path)
            covered.formUnion(path)
        }
        return paths.enumerated().map { index, path in
            let outcome: Outcome
            if case .end(let end) = path.last?.target { outcome = end } else { outcome = .failure }
            return Scenario(flowID: flowID, index: index + 1, transitions: path, outcome: outcome)
        }
    }

    /// Shortest list of transitions leading from `source` to arriving at `target`.
    private func shortestPath(from source: Int, to target: Int) -> [Transition]? {
        if source == target { return [] }
        return breadthFirst(from: source) { $0.target == .step(target) && isState(target) }
    }

    /// Shortest continuation from the target of `transition` to a successful end, or to any
    /// end when success cannot be reached: a scenario that takes a side branch still finishes
    /// the flow the way a user would want it to.
    private func completion(after transition: Transition) -> [Transition]? {
        switch transition.target {
        case .end:
            return []
        case .step(let next):
            guard isState(next) else { return nil }
            return shortestCompletion(from: next) { $0 == .success } ?? shortestCompletion(from: next) { _ in true }
        }
    }

    private func shortestCompletion(from first: Int, accepting: (Outcome) -> Bool) -> [Transition]? {
        breadthFirst(from: first) { edge in
            if case .end(let outcome) = edge.target { accepting(outcome) } else { false }
        }
    }

    /// The shortest list of transitions from `source` whose last one satisfies `arrives`,
    /// walking only steps that have transitions of their own: the one search behind paths to a
    /// step and completions to an end.
    private func breadthFirst(from source: Int, arrives: (Transition) -> Bool) -> [Transition]? {
        var previous: [Int: Transition] = [:]
        var queue = [source]
        var visited: Set<Int> = [source]
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            for edge in transitions(from: state) {
                if arrives(edge) {
                    var path = [edge]
                    var cursor = state
                    while cursor != source, let back = previous[cursor] {
                        path.append(back)
                        cursor = back.from
                    }
                    return path.reversed()
                }
                guard case .step(let next) = edge.target, isState(next), !visited.contains(next) else { continue }
                visited.insert(next)
                previous[next] = edge
                queue.append(next)
            }
        }
        return nil
    }
}

/// One path through a flow from its first step to an outcome: what `check` executes once.
public struct Scenario: Hashable, Sendable, Codable, Identifiable {
    public var flowID: String
    /// 1-based position in the flow's deterministic scenario list.
    public var index: Int
    public var transitions: [StateMachine.Transition]
    public var outcome: Outcome

    public init(flowID: String, index: Int, transitions: [StateMachine.Transition], outcome: Outcome) {
        self.flowID = flowID
        self.index = index
        self.transitions = transitions
        self.outcome = outcome
    }

    /// `flow-id/path-2`: stable across runs, used by `--case`, reports and sharding.
    public var id: String { "\(flowID)/path-\(index)" }

    /// Step numbers visited, in order (a step visited twice appears twice).
    public var steps: [Int] { transitions.map(\.from) }

    /// The alternates taken, as "step: label", for reports.
    public var choices: [String] {
        transitions.compactMap { transition in transition.label.map { "\(transition.from): \($0)" } }
    }
}
