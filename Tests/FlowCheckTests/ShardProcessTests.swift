import FlowCheck
import Foundation
import Testing

extension CheckServers {
/// `flowspec check --shard i/n` in n separate processes running at once, merged with `--merge`,
/// gives the verdicts of one unsharded run in yet another process — item for item, in the same
/// order — and both equal the committed golden list (GoldenVerdicts/flows.txt). Each process has
/// its own providers, keys and embedded backend, as each machine of a CI matrix would.
@Suite struct ShardProcessTests {
    /// Starts `flowspec ARGS` without waiting for it.
    static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = flowspecBinary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return (process, pipe)
    }

    /// Waits for a started process, off the cooperative threads; its exit status and output.
    static func finish(_ started: (process: Process, output: Pipe)) async -> (status: Int32, output: String) {
        await finished(started.process, output: started.output)
    }

    /// "id verdict" lines of a JSON report, in report order.
    static func verdicts(_ path: String) throws -> [String] {
        let report = try JSONReport.decode(try #require(FileManager.default.contents(atPath: path), "no report at \(path)"))
        return report.results.map { "\($0.id) \($0.verdict.rawValue)" }
    }

    @Test func shardsInSeparateProcessesMergeToTheVerdictsOfOneRun() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-shard-processes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let flows = Fixtures.repositoryFlows
        let count = 3
        // The unsharded run and the n shards, all at once: n + 1 processes.
        let single = dir.appendingPathComponent("single.json").path
        var started = [try Self.start(["check", flows, "--report", "json:\(single)"])]
        var shards: [String] = []
        for index in 1...count {
            let path = dir.appendingPathComponent("shard-\(index).json").path
            shards.append(path)
            started.append(try Self.start(["check", flows, "--shard", "\(index)/\(count)", "--report", "json:\(path)"]))
        }
        for (index, process) in started.enumerated() {
            let (status, output) = await Self.finish(process)
            #expect(status == 0, "process \(index) (0 = unsharded) exited \(status):\n\(output.suffix(2000))")
        }
        var sizes: [Int] = []
        for path in shards { sizes.append(try Self.verdicts(path).count) }
        #expect(sizes.max()! - sizes.min()! <= 1, "shards balanced to within one item: \(sizes)")

        let merged = dir.appendingPathComponent("merged.json").path
        let merging = try Self.start(["check", "--merge"] + shards + ["--report", "json:\(merged)"])
        let merge = await Self.finish(merging)
        #expect(merge.status == 0, "\(merge.output)")

        let one = try Self.verdicts(single)
        let sharded = try Self.verdicts(merged)
        #expect(sharded.count == sizes.reduce(0, +))
        #expect(sharded == one, "merged shards differ from the unsharded run: \(Set(sharded).symmetricDifference(one).sorted().prefix(10))")
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GoldenVerdicts/flows.txt")
        let expected = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(sharded == expected, "merged shards differ from the committed verdicts: \(Set(sharded).symmetricDifference(expected).sorted().prefix(10))")
    }
}
}
