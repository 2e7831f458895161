import Foundation
import Testing
@testable import FlowSite

/// A one-off build keeps the tree it replaced beside the output, and the next build brings that
/// tree up to date and swaps it in (`PreviousTree`).
@Suite("Previous tree")
struct PreviousTreeTests {
    /// Six flows: a one-flow change renders a sixth of the pages, so the replaced tree is kept.
    func sixFlows(_ scratch: Scratch) throws {
        for name in ["a", "b", "c", "d", "e", "f"] {
            try scratch.write("flows/\(name).md", sampleSpec(id: "flow-\(name)", title: "Flow \(name.uppercased())"))
        }
    }

    var kept: (Scratch) -> String { { $0.root + "/site/._build.previous" } }

    let behaviour = BuildBehaviourTests()

    /// Six flows built, then built again after an edit: the second build keeps the first's tree.
    func siteWithAKeptTree(_ scratch: Scratch) throws {
        try sixFlows(scratch)
        #expect(try scratch.build().succeeded)
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A, edited"))
        #expect(try scratch.build().succeeded)
    }

    @Test func theKeptTreeIsUpdatedAndSwappedIn() throws {
        let scratch = try Scratch()
        try sixFlows(scratch)
        #expect(try scratch.build().succeeded)
        #expect(!FileManager.default.fileExists(atPath: kept(scratch)), "a first build replaces nothing")
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A, edited"))
        #expect(try scratch.build().succeeded)
        // The replaced tree is kept, with a .gitignore so that git does not list it.
        #expect(try String(contentsOfFile: kept(scratch) + "/.gitignore", encoding: .utf8) == "*\n")
        let keptFolder = try #require(Scratch.inode(kept(scratch)))
        let before = try Scratch.snapshot(scratch.out)
        let unchangedPage = try #require(Scratch.inode(scratch.out + "/flows/flow-c.html"))

        try scratch.write("flows/b.md", sampleSpec(id: "flow-b", title: "Flow B, edited"))
        let report = try scratch.build()
        #expect(report.succeeded)
        #expect(report.renderedPages == ["flows/flow-b.html"])
        // The kept folder is the published one now, and the one it replaced is kept in turn.
        #expect(Scratch.inode(scratch.out) == keptFolder)
        #expect(Scratch.inode(scratch.out + "/flows/flow-c.html") == unchangedPage)
        var replaced = try Scratch.snapshot(kept(scratch))
        #expect(replaced.removeValue(forKey: ".gitignore") != nil)
        #expect(replaced == before)
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/.gitignore"))
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    @Test func aDamagedKeptTreeIsRepairedBeforeItIsSwappedIn() throws {
        let scratch = try Scratch()
        try siteWithAKeptTree(scratch)
        // What an interrupted update, or a hand in the folder, could leave.
        let tree = kept(scratch)
        let manager = FileManager.default
        try Data("stray".utf8).write(to: URL(fileURLWithPath: tree + "/stray.html"))
        try Data("half".utf8).write(to: URL(fileURLWithPath: tree + "/flows/.flow-c.html.tmp-1"))
        try manager.removeItem(atPath: tree + "/flows/flow-d.html")
        try manager.removeItem(atPath: tree + "/flows/flow-e.html")
        try manager.createDirectory(atPath: tree + "/flows/flow-e.html", withIntermediateDirectories: false)
        try Data("not the page".utf8).write(to: URL(fileURLWithPath: tree + "/flows/flow-f.html.new"))
        try manager.removeItem(atPath: tree + "/flows/flow-f.html")
        try manager.moveItem(atPath: tree + "/flows/flow-f.html.new", toPath: tree + "/flows/flow-f.html")
        try manager.removeItem(atPath: tree + "/assets")
        try manager.removeItem(atPath: tree + "/index.html")
        try manager.createDirectory(atPath: tree + "/index.html", withIntermediateDirectories: false)

        try scratch.write("flows/b.md", sampleSpec(id: "flow-b", title: "Flow B, edited"))
        #expect(try scratch.build().succeeded)
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    @Test func aFailedBuildLeavesTheSiteAndTheKeptTree() throws {
        let scratch = try Scratch()
        try siteWithAKeptTree(scratch)
        let site = try Scratch.snapshot(scratch.out)
        #expect(try Scratch.snapshot(kept(scratch)) != site.merging([".gitignore": Data("*\n".utf8)]) { a, _ in a })

        // Lint errors: nothing is written, and the kept tree is put back, by then a copy of the
        // site (the build made it one before it knew of the errors).
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C").replacingOccurrences(of: "### 5. Backend verifies", with: "### 3. Backend verifies"))
        #expect(try !scratch.build().succeeded)
        #expect(try Scratch.snapshot(scratch.out) == site)
        #expect(try Scratch.snapshot(kept(scratch)) == site.merging([".gitignore": Data("*\n".utf8)]) { a, _ in a })
        // A theme template that does not parse fails the build before anything is written.
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C"))
        try scratch.write("site/theme/templates/flow.mustache", "{{#broken}} never closed")
        #expect(throws: SiteBuildError.self) { try scratch.build() }
        #expect(try Scratch.snapshot(scratch.out) == site)
        #expect(FileManager.default.fileExists(atPath: kept(scratch) + "/" + BuildCache.relativePath))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.root + "/site").filter { $0.contains(".tmp-") || $0.contains(".old") }
        #expect(leftovers.isEmpty)
    }

    /// Both ways of telling files apart: by the folders' entries, and by `lstat`.
    @Test(arguments: [true, false]) func mirrorMakesATreeTheSameFileForFile(directoryInodes: Bool) throws {
        let scratch = try Scratch()
        let source = scratch.root + "/source"
        let tree = scratch.root + "/tree"
        let manager = FileManager.default
        for (path, text) in [("a.html", "a"), ("flows/b.html", "b"), ("flows/c.html", "c"), ("assets/x/y.js", "y"), (".flowspec/cache", "k")] {
            try scratch.write("source/" + path, text)
        }
        for (path, text) in [("flows/c.html", "old c"), ("flows/gone.html", "gone"), ("a.html/inner", "a folder where a file is"), ("assets/x", "a file where a folder is")] {
            try scratch.write("tree/" + path, text)
        }
        try manager.linkItem(atPath: source + "/flows/b.html", toPath: tree + "/flows/b.html")  // the same file: kept as it is
        let sameFile = Scratch.inode(tree + "/flows/b.html")
        try PreviousTree.mirror(source, into: tree, directoryInodes: directoryInodes)
        #expect(try Scratch.snapshot(tree) == Scratch.snapshot(source))
        for path in ["a.html", "flows/b.html", "flows/c.html", "assets/x/y.js", ".flowspec/cache"] {
            #expect(Scratch.inode(tree + "/" + path) == Scratch.inode(source + "/" + path), "\(path) is not the source's file")
        }
        #expect(Scratch.inode(tree + "/flows/b.html") == sameFile)
    }

    /// A folder of many pages: mirrored in step while the two folders list the same names in
    /// the same order (the tree made by linking the source's files one by one, as a kept tree
    /// is), and by name once they differ (names only one side has, at the start, in the middle
    /// and at the end), with the source's replaced files linked and the tree's own removed.
    @Test(arguments: [true, false]) func mirrorMatchesManyPagesInStepAndByName(directoryInodes: Bool) throws {
        let scratch = try Scratch()
        let source = scratch.root + "/source", tree = scratch.root + "/tree"
        let manager = FileManager.default
        let names = (0..<300).map { "flows/page-\($0).html" }
        for name in names { try scratch.write("source/" + name, name) }
        try manager.createDirectory(atPath: tree + "/flows", withIntermediateDirectories: true)
        for name in names { try manager.linkItem(atPath: source + "/" + name, toPath: tree + "/" + name) }
        // In step: only replaced files differ.
        for index in [0, 150, 299] { try manager.removeItem(atPath: source + "/" + names[index]); try scratch.write("source/" + names[index], "new") }
        try PreviousTree.mirror(source, into: tree, directoryInodes: directoryInodes)
        #expect(try Scratch.snapshot(tree) == Scratch.snapshot(source))
        for name in names { #expect(Scratch.inode(tree + "/" + name) == Scratch.inode(source + "/" + name), "\(name)") }
        // Out of step: names the tree lacks and names only the tree has.
        for index in [1, 151, 298] { try manager.removeItem(atPath: tree + "/" + names[index]) }
        for extra in ["flows/aaa.html", "flows/page-150b.html", "flows/zzz.html"] { try scratch.write("tree/" + extra, "stale") }
        for index in [2, 200] { try manager.removeItem(atPath: source + "/" + names[index]); try scratch.write("source/" + names[index], "newer") }
        try PreviousTree.mirror(source, into: tree, directoryInodes: directoryInodes)
        #expect(try Scratch.snapshot(tree) == Scratch.snapshot(source))
        for name in names where manager.fileExists(atPath: source + "/" + name) {
            #expect(Scratch.inode(tree + "/" + name) == Scratch.inode(source + "/" + name), "\(name)")
        }
    }

    @Test func entriesNameTheFilesInodesWhereTheyAreTrusted() throws {
        let scratch = try Scratch()
        try scratch.write("tree/flows/a.html", "a")
        let folder = scratch.root + "/tree/flows"
        // The build trusts the entries' inode numbers only on the local file systems it knows.
        let type = try #require(PreviousTree.fileSystemType(folder))
        #expect(PreviousTree.directoryInodesAreTrue(folder, folder) == [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994].contains(type))
        func entries(directoryInodes: Bool) throws -> [String: PreviousTree.Identity] {
            var result: [String: PreviousTree.Identity] = [:]
            try PreviousTree.forEachEntry(of: folder, directoryInodes: directoryInodes) { name, identity in result[name] = identity }
            return result
        }
        let listed = try entries(directoryInodes: true)
        let stated = try entries(directoryInodes: false)
        #expect(listed["a.html"]?.inode == stated["a.html"]?.inode)
        #expect(listed["a.html"]?.inode == Scratch.inode(folder + "/a.html"))
    }

    @Test func aBuildThatRendersMostPagesKeepsNoTree() throws {
        let scratch = try Scratch()
        try siteWithAKeptTree(scratch)
        #expect(FileManager.default.fileExists(atPath: kept(scratch)))
        // A clean build renders every page: the tree it replaced shares none of them with the
        // new one, and keeping it would double the site's space. The one kept before goes too.
        #expect(try scratch.build(incremental: false).succeeded)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: scratch.root + "/site").filter { $0.hasPrefix(".") }
        #expect(siblings.allSatisfy { $0.contains(".old-") }, "\(siblings)")  // trash a detached rm is removing
        #expect(!FileManager.default.fileExists(atPath: kept(scratch)))
    }
}
