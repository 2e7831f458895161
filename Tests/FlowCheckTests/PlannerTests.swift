import FlowCheck
import FlowModel
import Testing

@Suite struct PlannerTests {
    @Test func idsAreStableAndUnique() throws {
        let flows = try Fixtures.flows("hostile")
        let first = Planner.allItems(flows: flows).map(\.id)
        let second = Planner.allItems(flows: flows).map(\.id)
        #expect(first == second)
        #expect(Set(first).count == first.count)
        #expect(first.contains("hostile-login/path-1"))
        // The signature family: P1 P4 P5 P6 S1 S2 S12 S13, each variant its own item.
        #expect(first.contains("hostile-login/signature/P1"))
        #expect(first.contains("hostile-login/signature/S1[0]"))
        #expect(first.contains("hostile-login/signature/S1[1]"))
        #expect(first.contains("hostile-login/signature/S12[4]"))
        #expect(first.contains("hostile-login/signature/S13[2]"))
        #expect(!first.contains { $0.contains("/C1") }, "issuer cases belong to another rule")
    }

    @Test func caseFilterAcceptsSeveralSpellings() throws {
        let flows = try Fixtures.flows("hostile")
        // A reject case brings its rule's baseline (P1) along: the gate judges it by it.
        let baseline = "hostile-login/signature/P1"
        #expect(Planner(caseFilter: ["S1"]).plan(flows: flows).map(\.id) == [baseline, "hostile-login/signature/S1[0]", "hostile-login/signature/S1[1]"])
        #expect(Planner(caseFilter: ["S1[1]"]).plan(flows: flows).map(\.id) == [baseline, "hostile-login/signature/S1[1]"])
        #expect(Planner(caseFilter: ["hostile-login/signature/S1"]).plan(flows: flows).count == 3)
        // An accept case or a scenario needs no baseline.
        #expect(Planner(caseFilter: ["P4"]).plan(flows: flows).map(\.id) == ["hostile-login/signature/P4[0]", "hostile-login/signature/P4[1]"])
        #expect(Planner(caseFilter: ["path-1"]).plan(flows: flows).map(\.id) == ["hostile-login/path-1"])
        #expect(Planner(flowFilter: ["other"]).plan(flows: flows).isEmpty)
    }

    @Test(arguments: [1, 2, 3, 5, 64])
    func shardsPartitionTheWork(count: Int) throws {
        let flows = try Fixtures.flows("hostile")
        let all = Planner.allItems(flows: flows).map(\.id)
        var seen: [String] = []
        for index in 1...count {
            let slice = Planner(shard: Shard(index: index, count: count)).plan(flows: flows).map(\.id)
            // (Comparing with a second plan in this process could not fail; that the plan is the
            // same in another process is what EndToEndTests' golden verdicts show, against committed
            // bytes.)
            seen += slice
            // Balanced: sizes differ by at most one.
            #expect(abs(slice.count - all.count / count) <= 1)
        }
        #expect(seen.sorted() == all.sorted())
        #expect(Set(seen).count == seen.count)
    }

    @Test func shardSyntax() {
        #expect(Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        #expect(Shard(parsing: "0/4") == nil)
        #expect(Shard(parsing: "5/4") == nil)
        #expect(Shard(parsing: "x") == nil)
        #expect(ReportTarget(parsing: "junit:out/a.xml") == ReportTarget(format: .junit, path: "out/a.xml"))
        #expect(ReportTarget(parsing: "sarif:x") == nil)
        #expect(ReportTarget(parsing: "json:") == nil)
    }

    @Test func stateChangingCasesRunAlone() throws {
        let flows = try Fixtures.flows("hostile")
        let exclusive = Planner.allItems(flows: flows).filter(\.isExclusive).compactMap(\.caseID)
        #expect(Set(exclusive) == ["P5", "P6"])
    }
}
