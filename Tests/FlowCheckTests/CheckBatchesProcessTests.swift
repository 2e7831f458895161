import FlowCheck
import Foundation
import Testing

extension CheckServers {
/// `flowspec check` of more specs than it lints at a time (16) and more items than a round
/// (1 000): flows/ copied three times with unique ids, 24 specs in two lint batches, 1 653 items
/// in two rounds. Each copy gets the committed verdicts of flows/ (GoldenVerdicts/flows.txt);
/// `--flow` finds a flow of the second batch; an error in the second batch stops the run.
@Suite struct CheckBatchesProcessTests {
    static let copies = 3

    /// flows/ copied `copies` times (`K-name.md`, ids and `translation-of` suffixed `-K`) into
    /// `root/flows`, with `root/openapi` beside it (the flows name ../openapi/*.yaml).
    static func copiedFlows(into root: URL) throws -> URL {
        let dir = root.appendingPathComponent("flows")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("openapi"), withDestinationURL: Fixtures.repositoryRoot.appendingPathComponent("openapi"))
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryFlows).filter { $0.hasSuffix(".md") }
        for copy in 0..<copies {
            for name in names {
                let text = try String(contentsOfFile: Fixtures.repositoryFlows + "/" + name, encoding: .utf8)
                var lines = text.components(separatedBy: "\n")
                for key in ["id", "translation-of"] {
                    if let index = lines.firstIndex(where: { $0.hasPrefix(key + ": ") }) { lines[index] += "-\(copy)" }
                }
                try lines.joined(separator: "\n").write(to: dir.appendingPathComponent("\(copy)-\(name)"), atomically: true, encoding: .utf8)
            }
        }
        return dir
    }

    /// The golden "id verdict" lines of flows/.
    static func golden() throws -> [String] {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GoldenVerdicts/flows.txt")
        return try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// A copy's results as flows/'s "id verdict" lines (the `-K` suffix taken off its flow ids).
    static func lines(_ report: CheckReport, copy: Int) -> [String] {
        report.results.filter { $0.flowID.hasSuffix("-\(copy)") }.map { result in
            let flowID = String(result.flowID.dropLast("-\(copy)".count))
            return flowID + result.id.dropFirst(result.flowID.count) + " " + result.verdict.rawValue
        }
    }

    @Test func copiesInSeveralBatchesAndRoundsGetTheVerdictsOfFlows() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-check-batches-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = try Self.copiedFlows(into: root)
        let golden = try Self.golden()

        let whole = root.appendingPathComponent("whole.json").path
        let run = await ShardProcessTests.finish(try ShardProcessTests.start(["check", dir.path, "--report", "json:\(whole)"]))
        #expect(run.status == 0, "\(run.output.suffix(2000))")
        #expect(run.output.contains("checked in 2 rounds of at most 1000 items"), "\(run.output.suffix(500))")
        let report = try JSONReport.decode(try #require(FileManager.default.contents(atPath: whole)))
        #expect(report.results.count == Self.copies * golden.count)
        #expect(report.flows.count == Self.copies * 8)
        for copy in 0..<Self.copies {
            #expect(Self.lines(report, copy: copy).sorted() == golden.sorted(), "copy \(copy)")
        }

        // A flow of the last batch (copy 2's files sort last), alone.
        let one = root.appendingPathComponent("one.json").path
        let filtered = await ShardProcessTests.finish(
            try ShardProcessTests.start(["check", dir.path, "--flow", "password-login-2", "--report", "json:\(one)"]))
        #expect(filtered.status == 0, "\(filtered.output.suffix(2000))")
        let alone = try JSONReport.decode(try #require(FileManager.default.contents(atPath: one)))
        #expect(Self.lines(alone, copy: 2) == golden.filter { $0.hasPrefix("password-login/") })
        #expect(alone.results.count == golden.filter { $0.hasPrefix("password-login/") }.count)

        // An error in the last batch: nothing runs, the error is printed, exit 2.
        let last = dir.appendingPathComponent("2-password-login.md")
        let text = try String(contentsOf: last, encoding: .utf8)
        try text.replacingOccurrences(of: "\ntitle: ", with: "\ntitel: ").write(to: last, atomically: true, encoding: .utf8)
        let refused = await ShardProcessTests.finish(try ShardProcessTests.start(["check", dir.path]))
        #expect(refused.status == 2, "\(refused.output.suffix(2000))")
        #expect(refused.output.contains("2-password-login.md"))
        #expect(refused.output.contains("the specs have lint errors"))
        #expect(!refused.output.contains("backend: embedded mock"))
    }
}
}
