@testable import FlowModel
import Testing
import TestSupport

@Suite struct StateMachineTests {
    let here = SourceLocation(file: "t.md", line: 1, column: 1)

    func step(_ number: Int, _ alternates: [(String, Target)] = []) -> Step {
        Step(number: number, title: "s\(number)", from: "a", to: "b",
             alternates: alternates.map { Alternate(label: $0.0, target: $0.1, location: here) },
             prose: Markdown(source: "", location: here), location: here)
    }

    func flow(_ steps: [Step]) -> Flow {
        Flow(file: "t.md", id: "t", title: "T", steps: steps, location: here)
    }

    /// The Apple web flow's shape: 3 branches to 4 or 6, 4 loops on failure, 5 may cancel.
    var apple: Flow {
        flow([
            step(1), step(2),
            step(3, [("signed in", .step(6)), ("not signed in", .step(4))]),
            step(4, [("ok", .step(5)), ("failed", .step(4))]),
            step(5, [("accept", .step(6)), ("deny", .end(.cancelled))]),
            step(6), step(7),
            step(8, [("created", .end(.success)), ("failed", .end(.failure))]),
        ])
    }

    @Test func implicitTransitionsGoToTheNextNumber() {
        let machine = StateMachine(flow: apple)
        #expect(machine.start == 1)
        #expect(machine.transitions(from: 1).map(\.target) == [.step(2)])
        #expect(machine.transitions(from: 7).map(\.target) == [.step(8)])
        #expect(machine.outcomes == [.cancelled, .failure, .success])
    }

    @Test func scenariosCoverEveryTransitionWithShortestPaths() {
        let machine = StateMachine(flow: apple)
        let scenarios = machine.scenarios(flowID: "apple")
        let covered = Set(scenarios.flatMap(\.transitions).map { "\($0.from) \($0.label ?? "next") \($0.target)" })
        // Every edge of the shape above, written out by hand (not taken from the machine).
        let edges: Set<String> = [
            "1 next \(Target.step(2))", "2 next \(Target.step(3))",
            "3 signed in \(Target.step(6))", "3 not signed in \(Target.step(4))",
            "4 ok \(Target.step(5))", "4 failed \(Target.step(4))",
            "5 accept \(Target.step(6))", "5 deny \(Target.end(.cancelled))",
            "6 next \(Target.step(7))", "7 next \(Target.step(8))",
            "8 created \(Target.end(.success))", "8 failed \(Target.end(.failure))",
        ]
        #expect(covered == edges)
        // The loop on step 4 is taken exactly once, never unrolled.
        for scenario in scenarios {
            #expect(scenario.transitions.filter { $0.from == 4 && $0.label == "failed" }.count <= 1)
        }
        #expect(scenarios.map(\.id) == scenarios.indices.map { "apple/path-\($0 + 1)" })
        #expect(scenarios.first?.steps == [1, 2, 3, 6, 7, 8])
        #expect(scenarios.first?.outcome == .success)
        #expect(scenarios.contains { $0.outcome == .cancelled && $0.steps == [1, 2, 3, 4, 5] })
        // Deterministic.
        #expect(machine.scenarios(flowID: "apple") == scenarios)
    }

    @Test func reachabilityAndDeadEnds() {
        let machine = StateMachine(flow: flow([step(1, [("x", .step(3))]), step(2), step(3, [("loop", .step(3))])]))
        #expect(machine.reachableStates() == [1, 3])
        #expect(machine.statesReachingEnd().isEmpty)
        #expect(machine.scenarios(flowID: "f").isEmpty)
        #expect(machine.predecessors(of: 3) == [1, 2, 3])
    }

    @Test func duplicatesKeepTheFirstDefinition() {
        let machine = StateMachine(flow: flow([step(1), step(2, [("a", .end(.failure))]), step(2), step(3)]))
        #expect(machine.states == [1, 2, 3])
        #expect(machine.transitions(from: 2).map(\.target) == [.end(.failure)])
    }

    /// Steps written out of order (and a number twice) make the machine of the same steps in
    /// order: states ascending, the implicit next is the following number.
    @Test func stepsOutOfOrderMakeTheOrderedMachine() {
        let ordered = StateMachine(flow: flow([step(1), step(2, [("a", .step(4))]), step(3), step(4)]))
        let shuffled = StateMachine(flow: flow([step(3), step(1), step(4), step(2, [("a", .step(4))]), step(1, [("b", .end(.failure))])]))
        #expect(shuffled.states == [1, 2, 3, 4])
        #expect(shuffled == ordered)
        #expect(shuffled.transitions(from: 3).map(\.target) == [.step(4)])
        #expect(shuffled.transitions(from: 1).map(\.target) == [.step(2)])
    }

    @Test func jsonPathSubset() {
        #expect(JSONPath(parsing: "$.a.b[0]['c d']")?.components == [.key("a"), .key("b"), .index(0), .key("c d")])
        #expect(JSONPath(parsing: "$..a") == nil)
        #expect(JSONPath(parsing: "a.b") == nil)
        #expect(JSONPath(parsing: "$[*]") == nil)
        let value = JSONNode.object(["a": .array([.string("x"), .object(["b": .bool(true)])])])
        #expect(JSONPath(parsing: "$.a[1].b")?.evaluate(in: value) == .bool(true))
        #expect(JSONPath(parsing: "$.a[5]")?.evaluate(in: value) == nil)
    }

    @Test func tokenRulesMapToCatalogueFamilies() {
        let rule = TokenRule(id: "nonce", kind: .nonce, token: "id_token", step: 6, requirement: "", location: here)
        #expect(rule.cases.map(\.id) == ["P1", "P7", "C12", "C13", "C14", "C15", "C16", "C19"])
        #expect(Set(TokenCase.catalogue.map(\.id)).count == TokenCase.catalogue.count)
        for kind in TokenRuleKind.allCases {
            let cases = TokenCase.catalogue.filter { $0.families.contains(kind) }
            #expect(cases.contains { $0.id == "P1" }, "\(kind) must run the positive baseline")
            #expect(cases.count >= 2, "\(kind) has no case of its own")
        }
    }

    @Test func stepKinds() {
        #expect(StepKind(from: .client, to: .backend, hasExchange: true) == .request)
        #expect(StepKind(from: .client, to: .backend, hasExchange: false) == .undescribedRequest)
        #expect(StepKind(from: .backend, to: .provider, hasExchange: false) == .providerCall)
        #expect(StepKind(from: .person, to: .client, hasExchange: false) == .ui)
        #expect(!StepKind.ui.isExecutable)
        #expect(StepKind(from: nil, to: .client, hasExchange: false) == .unknown)
    }
}

/// `StateTable` holds what a `[Int: Value]` holds, whatever the states: numbers with and
/// without gaps, negative ones, none; keys that are states and keys that are not (dangling
/// targets), set, changed through `default:`, removed.
@Suite struct StateTableTests {
    @Test func aTableIsTheDictionary() {
        var generator = SplitMix(seed: 7)
        for round in 0..<400 {
            let count = Int.random(in: 0...12, using: &generator)
            let contiguous = round % 2 == 0
            var numbers = Set<Int>()
            let base = Int.random(in: -3...5, using: &generator)
            while numbers.count < count {
                numbers.insert(contiguous ? base + numbers.count : Int.random(in: -5...40, using: &generator))
            }
            let states = numbers.sorted()
            var table = StateTable<[Int]>(states: states)
            var dictionary: [Int: [Int]] = [:]
            for _ in 0..<60 {
                let key = Bool.random(using: &generator) && !states.isEmpty ? states.randomElement(using: &generator)! : Int.random(in: -8...45, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    let value = [Int.random(in: 0...9, using: &generator)]
                    table[key] = value
                    dictionary[key] = value
                case 1:
                    table[key, default: []].append(key)
                    dictionary[key, default: []].append(key)
                case 2:
                    table[key] = nil
                    dictionary[key] = nil
                default:
                    #expect(table[key] == dictionary[key], "\(states) \(key)")
                }
                #expect(StateTable<Int>.position(of: key, in: states) == states.firstIndex(of: key), "\(states) \(key)")
            }
            for key in -8...45 { #expect(table[key] == dictionary[key], "\(states) \(key)") }
            #expect(table.values.map { $0.map(String.init).joined(separator: ",") }.sorted() == dictionary.values.map { $0.map(String.init).joined(separator: ",") }.sorted())
        }
    }
}
