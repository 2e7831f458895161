import Foundation
import Testing
@testable import FlowSite

/// Determinism, atomicity and incremental rebuilds.
@Suite("Build behaviour")
struct BuildBehaviourTests {
    func threeFlows(_ scratch: Scratch) throws {
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A"))
        try scratch.write("flows/b.md", sampleSpec(id: "flow-b", title: "Flow B"))
        try scratch.write("flows/b-vi.md", sampleSpec(id: "flow-b-vi", title: "Luồng B", lang: "vi", translationOf: "flow-b"))
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C"))
    }

    /// The site in `scratch.out` equals a clean build of the same input, byte for byte.
    func expectEqualToACleanBuild(_ scratch: Scratch, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let clean = scratch.root + "/clean-\(UUID().uuidString)"
        #expect(try scratch.build(out: clean, incremental: false).succeeded, sourceLocation: sourceLocation)
        let incremental = try Scratch.snapshot(scratch.out)
        let full = try Scratch.snapshot(clean)
        #expect(incremental.keys.sorted() == full.keys.sorted(), sourceLocation: sourceLocation)
        for name in full.keys.sorted() {
            #expect(incremental[name] == full[name], "\(name) differs from a clean build", sourceLocation: sourceLocation)
        }
    }

    @Test func twoBuildsAreByteIdentical() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        let first = scratch.root + "/one"
        let second = scratch.root + "/two"
        #expect(try scratch.build(out: first).succeeded)
        #expect(try scratch.build(out: second, incremental: false).succeeded)
        let a = try Scratch.snapshot(first)
        let b = try Scratch.snapshot(second)
        #expect(a.keys.sorted() == b.keys.sorted())
        for name in a.keys.sorted() {
            #expect(a[name] == b[name], "\(name) differs between two builds")
        }
        // A rebuild in place (incremental, nothing changed) leaves every byte as it was.
        #expect(try scratch.build(out: first).succeeded)
        let c = try Scratch.snapshot(first)
        for name in a.keys.sorted() { #expect(a[name] == c[name], "\(name) changed on a no-op rebuild") }
        // No timestamps anywhere.
        let index = String(decoding: a["index.html"]!, as: UTF8.self)
        #expect(!index.contains(String(Calendar(identifier: .gregorian).component(.year, from: Date()))))
    }

    @Test func lintErrorLeavesThePreviousSiteUntouched() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        let before = try Scratch.snapshot(scratch.out)

        // Step 3 is declared twice and an alternate points nowhere: lint errors.
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C changed").replacingOccurrences(of: "### 5. Backend verifies", with: "### 3. Backend verifies"))
        let report = try scratch.build()
        #expect(!report.succeeded)
        #expect(report.diagnostics.contains { $0.severity == .error && $0.location.file.hasSuffix("c.md") })
        #expect(try Scratch.snapshot(scratch.out) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.root + "/site").filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func failureWhileRenderingLeavesThePreviousSiteUntouched() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        let before = try Scratch.snapshot(scratch.out)
        // A theme override that does not parse fails the build after lint.
        try scratch.write("site/theme/templates/flow.mustache", "{{#broken}} never closed")
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A2"))
        #expect(throws: SiteBuildError.self) { try scratch.build() }
        #expect(try Scratch.snapshot(scratch.out) == before)
    }

    @Test func refusesToReplaceAFolderItDidNotBuild() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        try scratch.write("precious/keep.txt", "do not delete")
        #expect(throws: SiteBuildError.self) { try scratch.build(out: scratch.root + "/precious") }
        #expect(FileManager.default.fileExists(atPath: scratch.root + "/precious/keep.txt"))
    }

    /// A damaged, truncated or foreign cache is ignored: the build is a full one and its output
    /// equals a clean build; nothing traps on the bytes it reads.
    @Test(arguments: [
        "truncated", "garbage", "huge-count", "empty", "old-format", "shard-truncated", "shard-missing", "shard-huge-count",
    ])
    func damagedCacheMeansAFullBuild(damage: String) throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        // The shard holding flow-a's entry (the others may be empty).
        let shard = SiteBuilder.shard(of: scratch.root + "/flows/a.md")
        let cachePath = scratch.out + "/" + (damage.hasPrefix("shard") ? BuildCache.shardPath(shard) : BuildCache.relativePath)
        var bytes = try FileSystem.read(cachePath)
        switch damage {
        case "truncated", "shard-truncated": bytes = Array(bytes.prefix(bytes.count / 2))
        case "garbage": bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        case "huge-count": bytes = Array((BuildCache.formatVersion + "\n").utf8) + [0, 0, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF]
        case "shard-huge-count": bytes = Array((BuildCache.formatVersion + "\n").utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
        case "empty": bytes = []
        default: bytes = Array("flowspec-site-cache 5\nglobal\tx\n".utf8)
        }
        if damage == "shard-missing" {
            try FileManager.default.removeItem(atPath: cachePath)
        } else {
            try FileSystem.write(bytes, to: cachePath)
        }
        #expect(BuildCache.load(from: scratch.out, shards: SiteBuilder.searchShards) == nil)
        let rebuilt = try scratch.build()
        #expect(rebuilt.succeeded)
        #expect(rebuilt.renderedPages.count == 4, "a damaged cache must not reuse pages")
        try expectEqualToACleanBuild(scratch)
    }

    /// A record shares its fields until one copy changes: the other keeps its values.
    @Test func recordsAreValuesThoughTheyShareStorage() {
        var first = FlowRecord(path: "a.md", contentHash: "h", id: "a", lang: "en", translationOf: "", title: "A", titleKey: "a",
                               tags: ["t"], card: Array("<li>".utf8), openapi: "", pageKey: "k")
        var second = first
        #expect(first == second)
        second.title = "B"
        second.tags.append("u")
        #expect(first.title == "A" && first.tags == ["t"])
        #expect(second.title == "B" && second.tags == ["t", "u"])
        #expect(first != second)
        first.title = "B"
        first.tags = ["t", "u"]
        #expect(first == second, "equal by value, in separate storage")
        var infos = [SiteBuilder.FlowInfo(record: first, shard: 0, diagnostics: [], flow: nil, stat: "")]
        let snapshot = infos
        infos[0].pageKey = "changed"
        #expect(snapshot[0].pageKey == "k" && infos[0].pageKey == "changed")
    }

    @Test func cacheRoundTrips() throws {
        let record = FlowRecord(
            path: "flows/ä.md", contentHash: "abc", id: "a", lang: "vi", translationOf: "", title: "Đăng nhập\tB",
            titleKey: "đăng nhập\tb", tags: ["x", "", "y z"], card: Array("<li>\n\\</li> → ✓".utf8), openapi: "openapi/ö.yaml", pageKey: "k"
        )
        let entry = BuildCache.Entry(record: record, stat: "12:3.4", diagnostics: "{\"a\":1}\n{}")
        let nothing = FlowRecord(path: "p", contentHash: "", id: "", lang: "", translationOf: "", title: "", titleKey: "", tags: [], card: [], openapi: "", pageKey: "")
        let empty = BuildCache.Entry(record: nothing, stat: "", diagnostics: "")
        let parsed = try #require(BuildCache.parseShard(BuildCache.serializeShard([entry, empty])))
        #expect(parsed == [entry, empty])
        #expect(parsed[1].tags.isEmpty)
        #expect(BuildCache.parseShard(BuildCache.serializeShard([])) == [])
        #expect(BuildCache.parseShard(Array(BuildCache.serializeShard([entry]).dropLast())) == nil)
    }

    /// The cache read back knows each entry's shard from the file it is in: the shard its path
    /// hashes to.
    @Test func cacheEntriesAreInTheShardOfTheirPath() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        let cache = try #require(BuildCache.load(from: scratch.out, shards: SiteBuilder.searchShards))
        #expect(cache.entries.count == 4)
        #expect(cache.entryShards == cache.entries.map { SiteBuilder.shard(of: $0.path) })
        #expect(Set(cache.entryShards).count > 1, "the flows should spread over several shards")
    }

    @Test func rebuildAfterOneChangedFlowRendersOnlyItsPage() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        let first = try scratch.build()
        #expect(first.renderedPages.count == 4)
        let inodeA = try #require(Scratch.inode(scratch.out + "/flows/flow-a.html"))
        let inodeC = try #require(Scratch.inode(scratch.out + "/flows/flow-c.html"))
        let inodeB = try #require(Scratch.inode(scratch.out + "/flows/flow-b.html"))
        let oldC = try scratch.read("flows/flow-c.html")
        let shardInodes = (0..<SiteBuilder.searchShards).map { Scratch.inode(scratch.out + "/" + SiteBuilder.searchShardPath($0)) }

        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C, revised"))
        let second = try scratch.build()
        #expect(second.succeeded)
        #expect(second.renderedPages == ["flows/flow-c.html"])
        #expect(second.parsedFiles == [scratch.root + "/flows/c.md"])
        #expect(second.reusedPages.count == 3)
        #expect(Scratch.inode(scratch.out + "/flows/flow-a.html") == inodeA, "unchanged page was rewritten")
        #expect(Scratch.inode(scratch.out + "/flows/flow-b.html") == inodeB, "unchanged page was rewritten")
        #expect(Scratch.inode(scratch.out + "/flows/flow-c.html") != inodeC)
        #expect(try scratch.read("flows/flow-c.html") != oldC)
        #expect(try scratch.read("index.html").contains("Flow C, revised"))
        let shards = try (0..<SiteBuilder.searchShards).map { try scratch.read(SiteBuilder.searchShardPath($0)) }
        #expect(shards.joined().contains("Flow C, revised"))
        let changedShard = SiteBuilder.shard(of: scratch.root + "/flows/c.md")
        for shard in 0..<SiteBuilder.searchShards {
            let same = Scratch.inode(scratch.out + "/" + SiteBuilder.searchShardPath(shard)) == shardInodes[shard]
            #expect(same == (shard != changedShard), "search shard \(shard) rewritten: \(!same)")
        }
        // The rebuilt site equals a clean build of the same input.
        try expectEqualToACleanBuild(scratch)
    }

    @Test func changingATitleRerendersItsTranslationsSwitcher() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        try scratch.write("flows/b.md", sampleSpec(id: "flow-b", title: "Flow B renamed"))
        let report = try scratch.build()
        #expect(report.renderedPages == ["flows/flow-b-vi.html", "flows/flow-b.html"])
        #expect(try scratch.read("flows/flow-b-vi.html").contains("title=\"Flow B renamed\""))
    }

    @Test func removedFlowDisappears() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        try FileManager.default.removeItem(atPath: scratch.root + "/flows/a.md")
        let report = try scratch.build()
        #expect(report.succeeded)
        #expect(report.renderedPages.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/flows/flow-a.html"))
        #expect(!(try scratch.read("index.html")).contains("flows/flow-a.html"))
    }

    @Test func duplicateIDIntroducedIncrementallyIsStillReported() throws {
        let scratch = try Scratch()
        try threeFlows(scratch)
        #expect(try scratch.build().succeeded)
        try scratch.write("flows/c.md", sampleSpec(id: "flow-a", title: "Copy of A"))
        let report = try scratch.build()
        #expect(!report.succeeded)
        #expect(report.diagnostics.contains { $0.severity == .error })
    }
}
