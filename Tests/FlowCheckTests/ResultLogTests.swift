import Foundation
import Testing
@testable import FlowCheck
@testable import FlowModel

/// A run's results go to a temporary file as they complete (`ResultLog`) and are read back one
/// at a time: what comes back, gated, ordered and written, is what the same results kept in
/// memory give.
@Suite struct ResultLogTests {
    static let call = ProviderRequestEvidence(
        method: "POST", path: "/auth/token", endpoint: "token", grantType: "authorization_code", status: 200, error: nil,
        clientSecretViolations: [], fields: ["code": "c0de…"])

    static func item(_ flow: String, _ rule: String, _ caseID: String, _ verdict: Verdict, holding: Bool, position: Int = 0) -> ItemResult {
        let info = TokenCaseInfo(
            rule: rule, rulePosition: position, caseID: caseID, variant: nil, variantDescription: nil,
            expectation: caseID == "P1" ? "accept" : "reject", step: 4, conformanceID: nil)
        var result = ItemResult(
            id: "\(flow)/\(rule)/\(caseID)", flowID: flow, kind: .tokenCase, title: "\(caseID) \u{1}é/\"", verdict: verdict,
            message: verdict == .pass ? nil : "refused: HTTP 401", tokenCase: info,
            steps: [StepResult(step: 4, title: "Posts the token", kind: "request", verdict: verdict, message: "m\nn")],
            cause: verdict.failsRun ? "the provider refused the backend's client authentication" : nil, durationMS: 7)
        if holding { result.heldProviderRequests = [call] }
        return result
    }

    /// Reject cases before and after their baseline, a baseline that fails, another rule, a
    /// scenario: in an order no report would use.
    static let arrival: [ItemResult] = [
        item("a", "nonce", "C12", .pass, holding: true),
        item("b", "nonce", "C12", .pass, holding: true),
        item("a", "nonce", "P1", .pass, holding: false),
        item("a", "nonce", "C13", .pass, holding: true),
        item("a", "expiry", "C5", .pass, holding: true, position: 1),
        item("b", "nonce", "P1", .fail, holding: false),
        ItemResult(
            id: "b/path-1", flowID: "b", kind: .scenario, title: "main", verdict: .pass,
            scenario: ScenarioInfo(index: 1, path: [1, 2], choices: [], outcome: "success"), durationMS: 3),
    ]

    /// What a report holds: the results gated and ordered; the calls held for the gate are not
    /// part of a result's report.
    static var expected: [ItemResult] {
        BaselineGate.apply(arrival).sorted(by: ResultOrder.precedes).map { result in
            var result = result
            result.heldProviderRequests = nil
            return result
        }
    }

    static func logged(_ log: ResultLog) -> ReportResults {
        for result in arrival { log.append(result) }
        return ReportResults(log: log)
    }

    @Test func resultsReadBackGatedAndInReportOrder() throws {
        let log = ResultLog()
        #expect(log.spills)
        let read = Self.logged(log)
        let expected = Self.expected
        #expect(Array(read) == expected)
        #expect(Array(read.headers) == expected.map(\.header))
        // Where the baseline failed, the held provider call is the inconclusive case's evidence.
        let gated = try #require(read.first { $0.id == "b/nonce/C12" })
        #expect(gated.verdict == .inconclusive)
        #expect(gated.evidence?.providerRequests == [Self.call])
        #expect(read.headers.first { $0.id == "b/nonce/C12" }?.cause == gated.cause)
        // What passed stays as it was.
        #expect(read.first { $0.id == "a/nonce/C12" }?.verdict == .pass)
    }

    @Test func withoutAWritableFolderTheResultsStayInMemory() {
        let log = ResultLog(directory: "/nonexistent-\(UUID().uuidString)")
        #expect(!log.spills)
        let read = Self.logged(log).map { result in
            var result = result
            result.heldProviderRequests = nil
            return result
        }
        #expect(read == Self.expected)
    }

    /// Many results over several flows, sealed flow by flow as rounds do, in either order of
    /// the seals: the same results, headers and gates as the whole set ordered in memory, with
    /// the records on disk in blocks (memory keeps none of them).
    @Test(arguments: [false, true]) func sealedRoundsReadBackAsOneReport(reversed: Bool) throws {
        var arrival: [ItemResult] = []
        for flow in ["f1", "f2", "f3"] {
            for rule in 0..<30 {
                for caseID in ["C12", "P1", "C13", "C5", "C7", "C9", "C3"] {
                    // f2's even rules fail their baseline: their passed reject cases are gated.
                    let verdict: Verdict = caseID == "P1" && flow == "f2" && rule % 2 == 0 ? .fail : .pass
                    arrival.append(Self.item(flow, "rule\(rule)", caseID, verdict, holding: caseID != "P1", position: rule))
                }
            }
        }
        arrival.shuffle()
        let log = ResultLog()
        let seals = ["f1", "f2", "f3"]
        for flow in reversed ? seals.reversed() : seals {
            for result in arrival where result.flowID == flow { log.append(result) }
            log.seal()
        }
        #expect(log.blocksInMemory == 0)
        let read = ReportResults(log: log)
        let expected = BaselineGate.apply(arrival).sorted(by: ResultOrder.precedes).map { result in
            var result = result
            result.heldProviderRequests = nil
            return result
        }
        #expect(read.count == 630)
        #expect(Array(read) == expected)
        #expect(Array(read.headers) == expected.map(\.header))
        // 15 failing baselines, six reject cases each.
        #expect(read.filter { $0.verdict == .inconclusive }.count == 15 * 6)
        #expect(log.blocksInMemory == 0)
    }

    /// The records' binary form gives back every field, set or nil, and refuses bytes cut short.
    @Test func recordsRoundTripTheirBinaryForm() throws {
        let full = TokenCaseInfo(
            rule: "nonce ü", rulePosition: 3, caseID: "C12", variant: 2, variantDescription: "a \"b\"\n",
            expectation: "reject", step: 7, conformanceID: "OIDC-1")
        let records = [
            ReportRecord(
                header: ResultHeader(
                    id: "f/nonce/C12[2]", flowID: "f", kind: .tokenCase, verdict: .inconclusive, cause: "why",
                    durationMS: 12, scenarioIndex: nil, tokenCase: full),
                location: .init(stored: .file(offset: 10, length: 20), held: .file(offset: 30, length: 4)),
                gate: BaselineGate.Baseline(id: "f/nonce/P1", message: nil, cause: "cause")),
            ReportRecord(
                header: ResultHeader(
                    id: "f/path-1", flowID: "f", kind: .scenario, verdict: .pass, cause: nil, durationMS: 0,
                    scenarioIndex: 1, tokenCase: nil),
                location: .init(stored: .file(offset: 0, length: 1))),
        ]
        let bytes = try #require(RecordCodec.encode(records))
        let decoded = try #require(bytes.withUnsafeBytes { RecordCodec.decode($0) })
        #expect(decoded.map(\.header) == records.map(\.header))
        #expect(decoded.map(\.gate) == records.map(\.gate))
        #expect(decoded.map { "\($0.location)" } == records.map { "\($0.location)" })
        for cut in [1, 9, bytes.count / 2, bytes.count - 1] {
            #expect(bytes.prefix(cut).withUnsafeBytes { RecordCodec.decode($0) } == nil)
        }
        // A result held in memory keeps its block in memory.
        var kept = records[1]
        kept.location.stored = .memory(Self.arrival[0])
        #expect(RecordCodec.encode([kept]) == nil)
    }

    /// The JSON report is streamed with each result's stored bytes spliced in; the whole report
    /// encoded by Foundation in one piece is the reference.
    @Test func streamedJSONEqualsTheReportEncodedWhole() throws {
        let report = CheckReport(
            tool: .init(version: "0.1.0"), startedAt: "2026-01-02T03:04:05Z", durationMS: 100,
            backend: .init(url: "http://127.0.0.1:1", embedded: true), shard: nil,
            flows: [.init(id: "a", title: "A", file: "flows/a.md"), .init(id: "b", title: "B", file: "flows/b.md")],
            ordered: Self.logged(ResultLog()))
        var whole = try JSONReport.encoder.encode(report)
        whole.append(0x0A)
        let streamed = try JSONReport.encode(report)
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: whole, as: UTF8.self))
        // And the report reads back as the results it holds.
        #expect(Array(try JSONReport.decode(streamed).results) == Array(report.results))
        // No results: the encoder's own empty array.
        let empty = CheckReport(
            tool: .init(version: "0.1.0"), startedAt: "2026-01-02T03:04:05Z", durationMS: 1,
            backend: .init(url: "http://127.0.0.1:1", embedded: true), shard: nil, flows: [], results: [])
        var emptyWhole = try JSONReport.encoder.encode(empty)
        emptyWhole.append(0x0A)
        #expect(try JSONReport.encode(empty) == emptyWhole)
    }
}

/// A report file is written whole or not at all.
@Suite struct AtomicFileWriterTests {
    @Test func aCommittedFileIsWholeAndAnAbandonedOneLeavesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("afw-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/deep/er/report.txt"
        let large = String(repeating: "0123456789abcdef", count: 10_000)  // several 64 KiB flushes
        let writer = try AtomicFileWriter(path: path)
        try writer.write(large)
        try writer.write("é\n")
        #expect(!FileManager.default.fileExists(atPath: path))
        try writer.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == large + "é\n")

        // Abandoned half way: the old file stays, no temporary is left beside it.
        do {
            let second = try AtomicFileWriter(path: path)
            try second.write(String(repeating: "x", count: 100_000))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == large + "é\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/deep/er") == ["report.txt"])

        // A path under a file cannot be made: the error names it.
        #expect(throws: FileWriteError.self) { try AtomicFileWriter(path: path + "/inside.txt") }
    }
}
