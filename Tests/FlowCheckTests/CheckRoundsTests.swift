@testable import FlowCheck
import FlowLint
import FlowModel
import FlowParser
import Foundation
import Testing

/// A run against the embedded backend goes in rounds of whole flows, each with fresh mocks
/// (`RunPlan`): the rounds cover the plan exactly, in its order, and give the verdicts of one
/// round.
@Suite struct RunPlanTests {
    static func repositoryRun() throws -> LintRun {
        let run = Linter().lint(paths: [Fixtures.repositoryFlows])
        #expect(!run.hasErrors)
        return run
    }

    @Test func roundsAreWholeFlowsInPlanOrderCoveringThePlan() throws {
        let run = try Self.repositoryRun()
        let planner = Planner(providers: run.providers)
        let whole = planner.plan(flows: run.flows)
        let counts = Dictionary(grouping: whole, by: \.flowID).mapValues(\.count)
        for limit in [1, 60, 120, 250, whole.count, 100_000] {
            let plan = RunPlan(flows: run.flows, planner: planner, roundItems: limit)
            #expect(plan.total == whole.count)
            let rounds = try plan.rounds.map { plan.items(of: $0, flows: try plan.flows(of: $0)) }
            // Concatenated, the rounds are the plan made at once, item for item.
            #expect(rounds.flatMap { $0 }.map(\.id) == whole.map(\.id), "limit \(limit)")
            for (round, items) in zip(plan.rounds, rounds) {
                // Whole flows: every item of a round's flows is in the round.
                let flows = try plan.flows(of: round).map(\.id)
                #expect(items.count == flows.reduce(0) { $0 + counts[$1]! })
                // At most `limit` items, unless one flow alone has more.
                #expect(items.count <= limit || flows.count == 1, "limit \(limit): \(items.count) items in \(flows)")
            }
            // Rounds are not split smaller than they must be: a round and the next flow exceed the limit.
            for (round, next) in zip(plan.rounds, plan.rounds.dropFirst()) {
                let size = plan.flows[round].reduce(0) { $0 + counts[$1.id]! }
                #expect(size + counts[plan.flows[next.lowerBound].id]! > limit)
            }
        }
        #expect(RunPlan(flows: run.flows, planner: planner, roundItems: 120).rounds.count > 3)
        #expect(RunPlan(flows: run.flows, planner: planner, roundItems: nil).rounds.count == 1)
    }

    /// A shard's slice is chosen over the whole plan; its rounds hold exactly the slice.
    @Test func aShardIsSlicedOverTheWholePlanThenSplit() throws {
        let run = try Self.repositoryRun()
        for index in 1...3 {
            let planner = Planner(shard: Shard(index: index, count: 3), providers: run.providers)
            let plan = RunPlan(flows: run.flows, planner: planner, roundItems: 50)
            #expect(plan.rounds.count > 1)
            #expect(try plan.rounds.flatMap { plan.items(of: $0, flows: try plan.flows(of: $0)) }.map(\.id) == planner.plan(flows: run.flows).map(\.id))
        }
    }

    /// `check` plans as it lints, a batch of flows at a time: the same rounds, items and flows
    /// as the plan made of all the flows at once, sharded or not, whatever the batches.
    @Test func aPlanBuiltBatchByBatchIsThePlanMadeAtOnce() throws {
        let run = try Self.repositoryRun()
        let parser = Linter().parser
        for shard in [nil, Shard(index: 2, count: 3)] {
            let planner = Planner(shard: shard, providers: run.providers)
            for limit in [1, 120, 100_000] {
                let whole = RunPlan(flows: run.flows, planner: planner, roundItems: limit, reparse: parser)
                for size in [1, 2, 4] {
                    var builder = RunPlan.Builder(planner: planner, roundItems: limit, reparse: parser)
                    for start in stride(from: 0, to: run.flows.count, by: size) {
                        builder.add(Array(run.flows[start..<min(start + size, run.flows.count)]))
                    }
                    let plan = builder.finish()
                    #expect(plan.total == whole.total && plan.rounds == whole.rounds && plan.flows == whole.flows, "limit \(limit), batches of \(size)")
                    for round in plan.rounds {
                        let flows = try plan.flows(of: round)
                        #expect(flows == (try whole.flows(of: round)))
                        #expect(plan.items(of: round, flows: flows).map(\.id) == whole.items(of: round, flows: flows).map(\.id))
                    }
                }
            }
        }
    }

    @Test func nothingPlannedIsOneEmptyRound() throws {
        let run = try Self.repositoryRun()
        let plan = RunPlan(flows: run.flows, planner: Planner(flowFilter: ["no-such-flow"], providers: run.providers), roundItems: 100)
        #expect(plan.total == 0 && plan.flows.isEmpty)
        #expect(plan.rounds == [0..<0])
        #expect(try plan.items(of: plan.rounds[0], flows: plan.flows(of: plan.rounds[0])).isEmpty)
    }

    /// Flows read from files are parsed again when their round starts (not kept for the whole
    /// run): the same flows as linted, and a spec that changed since is refused by name.
    @Test func roundsParseTheirFlowsAgainAndRefuseAChangedSpec() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-rounds-\(UUID().uuidString)")
        let dir = root.appendingPathComponent("flows")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // The flows name ../openapi/*.yaml.
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("openapi"), withDestinationURL: Fixtures.repositoryRoot.appendingPathComponent("openapi"))
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryFlows).filter { $0.hasSuffix(".md") }
        for name in names {
            try FileManager.default.copyItem(atPath: Fixtures.repositoryFlows + "/" + name, toPath: dir.appendingPathComponent(name).path)
        }
        let linter = Linter()
        let run = linter.lint(paths: [dir.path])
        #expect(!run.hasErrors, "\(DiagnosticPrinter.text(run.diagnostics, color: false))")
        let planner = Planner(providers: run.providers)
        let plan = RunPlan(flows: run.flows, planner: planner, roundItems: 120, reparse: linter.parser)
        let byID = Dictionary(uniqueKeysWithValues: run.flows.map { ($0.id, $0) })
        for round in plan.rounds {
            #expect(try plan.flows(of: round) == plan.flows[round].map { byID[$0.id]! })
        }
        // One round: nothing to gain, the flows are kept (no file is read again).
        #expect(RunPlan(flows: run.flows, planner: planner, roundItems: nil, reparse: linter.parser).rounds.count == 1)

        let last = try #require(plan.rounds.last)
        let changed = plan.flows[last.lowerBound].file
        let text = try String(contentsOfFile: changed, encoding: .utf8)
        try (text + "\nA sentence added after the check was planned.\n").write(toFile: changed, atomically: true, encoding: .utf8)
        #expect(throws: RunPlan.SpecChanged.self) { try plan.flows(of: last) }
        do {
            _ = try plan.flows(of: last)
        } catch {
            #expect(error.description == "\(changed) changed while the check ran: check it again")
        }
        // The other rounds still read as linted.
        #expect(try plan.flows(of: plan.rounds[0]).count == plan.rounds[0].count)
    }
}

extension CheckServers {
    /// flows/ checked in rounds of at most 120 items, each against fresh embedded mocks, gives
    /// the committed verdicts of one run (GoldenVerdicts/flows.txt, written by a run in one round).
    @Suite struct CheckRoundsTests {
        @Test func roundsOfFreshMocksGiveTheVerdictsOfOneRun() async throws {
            let run = try RunPlanTests.repositoryRun()
            var configuration = CheckConfiguration(timeout: 60, concurrency: 8, planner: Planner(providers: run.providers))
            configuration.roundItems = 120
            configuration.parser = Linter().parser  // each round parses its flows again, as `check` does
            let rounds = RunPlan(flows: run.flows, planner: configuration.planner, roundItems: 120).rounds.count
            let output = CapturedOutput()
            let (code, report) = await CheckSession.run(flows: run.flows, configuration: configuration, console: output.console)
            #expect(code == 0, "\(output.text.suffix(2000))")
            #expect(output.text.contains("checked in \(rounds) rounds of at most 120 items"))
            // Where the backend is, said once (the first round's).
            #expect(output.text.components(separatedBy: "backend: embedded mock at").count == 2)
            let lines = try #require(report).results.map { "\($0.id) \($0.verdict.rawValue)" }
            let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GoldenVerdicts/flows.txt")
            let expected = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines == expected, "differs from one run: \(Set(lines).symmetricDifference(expected).sorted().prefix(10))")
            #expect(report?.flows.map(\.id) == run.flows.map(\.id).sorted())
        }
    }
}
