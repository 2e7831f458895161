import Foundation
import Testing
@testable import FlowSite
import TestSupport

/// A search shard's script and its index: the script is the fragments as the search page reads
/// them, and the index gives each flow's fragment back from it, or nothing when the script is
/// not the one the index describes.
@Suite struct SearchShardScriptTests {
    /// Random shard contents: paths, and fragments (some empty) that hold the script's own
    /// separators and end.
    static func lines(_ generator: inout SplitMix) -> [SearchShardScript.Line] {
        let pieces = ["[", "]", ",\n", "\n]);\n", "\"x\"", "ä", "→", "\\", "a", " ", "\n"]
        return (0..<Int.random(in: 0...12, using: &generator)).map { number in
            let empty = Int.random(in: 0..<4, using: &generator) == 0
            let text = empty ? "" : "[" + (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() + "]"
            return ("flows/\(number)-\(Int.random(in: 0...99, using: &generator)).md", .bytes(Array(text.utf8)[...]))
        }
    }

    /// Random shards, each with its number, its lines, and its script and index as made.
    static func forEachShard(seed: UInt64, rounds: Int, _ body: (inout SplitMix, Int, [SearchShardScript.Line], [UInt8], [UInt8]) throws -> Void) throws {
        var generator = SplitMix(seed: seed)
        for round in 0..<rounds {
            let shard = round % SiteBuilder.searchShards
            let lines = Self.lines(&generator)
            let (js, index) = try SearchShardScript.make(shard: shard, lines)
            try body(&generator, shard, lines, js, index)
        }
    }

    /// A fragment's bytes: its own, or its range of `script`.
    static func bytes(_ fragment: SearchShardScript.Fragment?, in script: [UInt8] = []) -> [UInt8]? {
        switch fragment {
        case .bytes(let bytes): Array(bytes)
        case .kept(let range): range.upperBound <= script.count ? Array(script[range]) : nil
        case nil: nil
        }
    }

    /// Each line's fragment as bytes (kept ones from `script`), by path.
    static func texts(_ fragments: [String: SearchShardScript.Fragment], in script: [UInt8]) -> [String: [UInt8]] {
        fragments.compactMapValues { bytes($0, in: script) }
    }

    static func texts(_ lines: [SearchShardScript.Line], in script: [UInt8] = []) -> [String: [UInt8]] {
        Dictionary(lines.map { ($0.path, bytes($0.fragment, in: script) ?? []) }, uniquingKeysWith: { _, last in last })
    }

    /// The script as the site has always written it: prefix, non-empty fragments joined, end.
    static func expectedScript(shard: Int, _ lines: [SearchShardScript.Line], previous script: [UInt8] = []) -> String {
        "/* flowspec search index, shard \(shard): [href, title, context, text, lang] per entry. */\n"
            + "window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([\n"
            + lines.filter { !$0.fragment.isEmpty }.map { String(decoding: bytes($0.fragment, in: script) ?? [], as: UTF8.self) }.joined(separator: ",\n")
            + "\n]);\n"
    }

    @Test func theScriptIsTheFragmentsJoinedAndTheIndexGivesThemBack() throws {
        try Self.forEachShard(seed: 14, rounds: 300) { _, shard, lines, js, index in
            #expect(String(decoding: js, as: UTF8.self) == Self.expectedScript(shard: shard, lines))
            let back = try #require(SearchShardScript.fragments(shard: shard, index: index, script: js))
            #expect(Self.texts(back, in: js) == Self.texts(lines))
            // Where `layout` says each fragment is.
            let layout = SearchShardScript.layout(shard: shard, lines)
            #expect(layout.size == js.count)
            for (line, range) in zip(lines, layout.ranges) where !line.fragment.isEmpty { #expect(back[line.path] == .kept(range)) }
            // The index holds no fragment: it stays small whatever the script's size.
            #expect(index.count <= 64 + 72 + lines.reduce(0) { $0 + $1.path.utf8.count + 12 })
        }
    }

    /// A script larger than the pieces it is written in: handed on in pieces of exactly
    /// `chunkSize` bytes but the last, and read back whole.
    @Test func aLargeScriptIsWrittenInPieces() throws {
        var generator = SplitMix(seed: 16)
        let lines: [SearchShardScript.Line] = (0..<40).map { number in
            let size = Int.random(in: 0...60_000, using: &generator)
            let text = "[" + String(repeating: "é,\n", count: size / 4) + "]"
            return ("flows/\(number).md", size == 0 ? .empty : .bytes(Array(text.utf8)[...]))
        }
        var pieces: [Int] = []
        var script: [UInt8] = []
        let index = try SearchShardScript.write(shard: 5, lines, previous: nil) { piece in
            pieces.append(piece.count)
            script.append(contentsOf: piece)
        }
        #expect(pieces.count > 3)
        #expect(pieces.dropLast().allSatisfy { $0 == SearchShardScript.chunkSize })
        #expect(String(decoding: script, as: UTF8.self) == Self.expectedScript(shard: 5, lines))
        let back = try #require(SearchShardScript.fragments(shard: 5, index: index, script: script))
        #expect(Self.texts(back, in: script) == Self.texts(lines))
    }

    /// A rebuild's script: the previous script is read from its file in pieces and checked, and
    /// the kept fragments are read from it as the new one is written, in any order, beside new
    /// ones; the result is the script made of the same fragments in memory.
    @Test func keptFragmentsAreReadFromThePreviousScriptFile() throws {
        let scratch = try Scratch()
        var generator = SplitMix(seed: 17)
        for round in 0..<60 {
            let shard = round % SiteBuilder.searchShards
            // Large fragments in some rounds: a script of several pieces.
            var lines = Self.lines(&generator)
            if round % 3 == 0 {
                lines = lines.map { line in
                    line.fragment.isEmpty ? line : (line.path, .bytes(Array(("[\"" + String(repeating: "é→x", count: Int.random(in: 1...40_000, using: &generator)) + "\"]").utf8)[...]))
                }
            }
            let (js, index) = try SearchShardScript.make(shard: shard, lines)
            let path = scratch.root + "/script-\(round).js"
            try Data(js).write(to: URL(fileURLWithPath: path))
            let (previous, kept) = try #require(SearchShardScript.open(shard: shard, index: index, script: path))
            // The next build's lines: the kept ones shuffled, some replaced, some new.
            var next: [SearchShardScript.Line] = lines.map { ($0.path, kept[$0.path]!) }.shuffled(using: &generator)
            for position in next.indices where Int.random(in: 0..<4, using: &generator) == 0 {
                next[position].fragment = .bytes(Array("[\"new \(position)\"]".utf8)[...])
            }
            next.append(("flows/added-\(round).md", .bytes(Array("[\"added\"]".utf8)[...])))
            let (written, writtenIndex) = try SearchShardScript.make(shard: shard, next, previous: previous)
            #expect(String(decoding: written, as: UTF8.self) == Self.expectedScript(shard: shard, next, previous: js))
            let back = try #require(SearchShardScript.fragments(shard: shard, index: writtenIndex, script: written))
            #expect(Self.texts(back, in: written) == Self.texts(next, in: js))
            // A script edited since its index was written is not used, whatever its size.
            var edited = js
            let position = Int.random(in: 0..<js.count, using: &generator)
            edited[position] ^= 0x01
            try Data(edited).write(to: URL(fileURLWithPath: path))
            #expect(SearchShardScript.open(shard: shard, index: index, script: path)?.fragments == nil, "byte \(position) changed")
        }
    }

    /// The check takes a script in pieces of any size (a read can stop anywhere): the bytes
    /// between fragments and the fingerprint's words are followed across pieces.
    @Test func aScriptIsCheckedInPiecesOfAnySize() throws {
        try Self.forEachShard(seed: 18, rounds: 200) { generator, shard, lines, js, index in
            var pieces: [ArraySlice<UInt8>] = []
            var start = 0
            while start < js.count {
                let end = min(js.count, start + Int.random(in: 1...13, using: &generator))
                pieces.append(js[start..<end])
                start = end
            }
            let back = try #require(SearchShardScript.fragments(shard: shard, index: index, script: pieces))
            #expect(Self.texts(back, in: js) == Self.texts(lines))
            var changed = pieces
            let piece = try #require(changed.indices.filter { !changed[$0].isEmpty }.randomElement(using: &generator))
            var bytes = Array(changed[piece])
            bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= 0x20
            changed[piece] = bytes[...]
            #expect(SearchShardScript.fragments(shard: shard, index: index, script: changed) == nil)
        }
    }

    @Test func aScriptThatIsNotTheIndexedOneGivesNothing() throws {
        try Self.forEachShard(seed: 15, rounds: 200) { generator, shard, _, js, index in
            var changed = js
            let position = Int.random(in: 0..<js.count, using: &generator)
            changed[position] = changed[position] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            #expect(SearchShardScript.fragments(shard: shard, index: index, script: changed) == nil, "byte \(position) changed")
            #expect(SearchShardScript.fragments(shard: shard, index: index, script: Array(js.dropLast())) == nil)
            #expect(SearchShardScript.fragments(shard: shard, index: index, script: js + [0x0A]) == nil)
            #expect(SearchShardScript.fragments(shard: (shard + 1) % SiteBuilder.searchShards, index: index, script: js) == nil)
            #expect(SearchShardScript.fragments(shard: shard, index: Array(index.dropLast()), script: js) == nil)
            #expect(SearchShardScript.fragments(shard: shard, index: index + [0], script: js) == nil)
        }
        // Two changes that a plain multiply-and-xor over words would let cancel out: the top bit
        // of the same byte of two words.
        let text = Array(String(repeating: "abcdefgh", count: 8).utf8)
        var twice = text
        twice[7] ^= 0x80
        twice[15] ^= 0x80
        #expect(SearchShardScript.digest(twice) != SearchShardScript.digest(text))
        #expect(SearchShardScript.digest(Array(text.dropLast())) != SearchShardScript.digest(text))
        // A minifier's edit: the separators' line breaks gone.
        let lines: [SearchShardScript.Line] = [("a.md", .bytes(Array("[1]".utf8)[...])), ("b.md", .bytes(Array("[2]".utf8)[...]))]
        let (js, index) = try SearchShardScript.make(shard: 3, lines)
        let minified = Array(String(decoding: js, as: UTF8.self).replacingOccurrences(of: ",\n", with: ",").utf8)
        #expect(SearchShardScript.fragments(shard: 3, index: index, script: minified) == nil)
    }
}

/// In builds: a rebuild takes the unchanged flows' fragments from the previous script, and a
/// script edited since (minified, or changed at the same size) makes the rebuild a full one.
@Suite struct SearchShardRebuildTests {
    let behaviour = BuildBehaviourTests()
    static let count = 40

    func flows(_ scratch: Scratch) throws {
        for n in 0..<Self.count { try scratch.write("flows/f\(n).md", sampleSpec(id: "flow-\(n)", title: "Flow \(n)")) }
    }

    /// A flow whose search shard holds other flows too, and one of those.
    func sharingAShard(_ scratch: Scratch) throws -> (changed: Int, other: Int, shard: Int) {
        let shards = (0..<Self.count).map { SiteBuilder.shard(of: scratch.root + "/flows/f\($0).md") }
        let changed = try #require(shards.indices.first { n in shards.indices.contains { $0 != n && shards[$0] == shards[n] } })
        let other = try #require(shards.indices.first { $0 != changed && shards[$0] == shards[changed] })
        return (changed, other, shards[changed])
    }

    func revise(_ scratch: Scratch, _ n: Int, _ round: Int) throws {
        try scratch.write("flows/f\(n).md", sampleSpec(id: "flow-\(n)", title: "Flow \(n), revised \(round)"))
    }

    @Test func aRebuildTakesTheOtherFlowsEntriesFromTheScript() throws {
        let scratch = try Scratch()
        try flows(scratch)
        #expect(try scratch.build().renderedPages.count == Self.count)
        let (changed, other, shard) = try sharingAShard(scratch)
        // The second rebuild updates the tree the first one kept (PreviousTree).
        for round in 1...2 {
            try revise(scratch, changed, round)
            let report = try scratch.build()
            #expect(report.renderedPages == ["flows/flow-\(changed).html"], "round \(round)")
            let script = try scratch.read(SiteBuilder.searchShardPath(shard))
            #expect(script.contains("Flow \(changed), revised \(round)") && script.contains("Flow \(other)"))
            try behaviour.expectEqualToACleanBuild(scratch)
        }
        let index = try Data(contentsOf: URL(fileURLWithPath: scratch.out + "/" + SiteBuilder.searchIndexPath(shard)))
        #expect(!String(decoding: index, as: UTF8.self).contains("Flow \(other)"), "the index holds no fragment")
    }

    /// Each edit, as a tool that rewrites the file would make it (a new file in its place).
    static let edits: [(String, @Sendable (String, Int) -> String)] = [
        ("minified", { text, _ in text.replacingOccurrences(of: ",\n", with: ",") }),
        ("same size", { text, other in text.replacingOccurrences(of: "Flow \(other)\"", with: "Flux \(other)\"") }),
    ]

    func edit(_ scratch: Scratch, shard: Int, other: Int, _ change: @Sendable (String, Int) -> String) throws {
        let path = scratch.out + "/" + SiteBuilder.searchShardPath(shard)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = change(text, other)
        #expect(edited != text, "the edit changed nothing")
        try FileManager.default.removeItem(atPath: path)
        try Data(edited.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: [false, true]) func anEditedScriptMakesTheRebuildAFullOne(keptTree: Bool) throws {
        for (name, change) in Self.edits {
            let scratch = try Scratch()
            try flows(scratch)
            #expect(try scratch.build().succeeded)
            let (changed, other, shard) = try sharingAShard(scratch)
            if keptTree {
                try revise(scratch, changed, 0)
                #expect(try scratch.build().renderedPages.count == 1)
            }
            try edit(scratch, shard: shard, other: other, change)
            try revise(scratch, changed, 1)
            let report = try scratch.build()
            #expect(report.succeeded)
            #expect(report.renderedPages.count == Self.count, "\(name): not a full build")
            #expect(try scratch.read(SiteBuilder.searchShardPath(shard)).contains("Flow \(other)\""), "\(name)")
            try behaviour.expectEqualToACleanBuild(scratch)
        }
    }

    @Test func serveRebuildsInFullAfterAnEditedScript() throws {
        for (name, change) in Self.edits {
            let scratch = try Scratch()
            try flows(scratch)
            var options = scratch.options()
            options.memory = SiteBuildMemory()
            let builder = SiteBuilder(options: options)
            #expect(try builder.build().succeeded)
            let (changed, other, shard) = try sharingAShard(scratch)
            try revise(scratch, changed, 0)
            #expect(try builder.build().renderedPages.count == 1)
            options.memory?.settle()
            try edit(scratch, shard: shard, other: other, change)
            try revise(scratch, changed, 1)
            let report = try builder.build()
            #expect(report.renderedPages.count == Self.count, "\(name): not a full build")
            try behaviour.expectEqualToACleanBuild(scratch)
        }
    }
}

/// The tests' ways in: a script file opened and checked in one call, and a script's fingerprint
/// taken whole.
extension SearchShardScript {
    static func open(shard: Int, index: [UInt8], script path: String) -> (previous: Previous, fragments: [String: Fragment])? {
        guard let (previous, _) = Previous.open(path), let fragments = fragments(shard: shard, index: index, previous: previous) else { return nil }
        return (previous, fragments)
    }

    static func digest(_ script: [UInt8]) -> String {
        script.withUnsafeBytes { raw in
            var fingerprint = Fingerprint()
            let words = raw.count / 8 * 8
            fingerprint.add(words: UnsafeRawBufferPointer(rebasing: raw[..<words]))
            return fingerprint.finish(tail: UnsafeRawBufferPointer(rebasing: raw[words...]), count: raw.count)
        }
    }
}
