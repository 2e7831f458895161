import Foundation
import Testing
@testable import FlowSite

/// Builds with a memory (what `serve` does): after the first, each updates the site in place and
/// starts from what the last one remembered. After every kind of change the site must equal a
/// clean build of the same input, byte for byte, file for file.
@Suite("Update in place")
struct InPlaceUpdateTests {
    let behaviour = BuildBehaviourTests()

    func builder(_ scratch: Scratch, memory: SiteBuildMemory) -> SiteBuilder {
        var options = scratch.options()
        options.memory = memory
        return SiteBuilder(options: options)
    }

    @Test func everyKindOfChangeEndsAsACleanBuildWould() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        let memory = SiteBuildMemory()
        let builder = builder(scratch, memory: memory)
        #expect(try builder.build().renderedPages.count == 4)
        memory.settle()
        #expect(memory.previous.value[scratch.out] != nil, "the build was not remembered")

        // One title: only its page is written; the other pages keep their files (no new tree).
        let inodeB = try #require(Scratch.inode(scratch.out + "/flows/flow-b.html"))
        let inodeC = try #require(Scratch.inode(scratch.out + "/flows/flow-c.html"))
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C, revised"))
        var report = try builder.build()
        #expect(report.renderedPages == ["flows/flow-c.html"])
        #expect(Scratch.inode(scratch.out + "/flows/flow-b.html") == inodeB)
        #expect(Scratch.inode(scratch.out + "/flows/flow-c.html") != inodeC)
        #expect(try scratch.read("index.html").contains("Flow C, revised"))
        try behaviour.expectEqualToACleanBuild(scratch)

        // A new flow, a removed flow, a translation's title.
        try scratch.write("flows/d.md", sampleSpec(id: "flow-d", title: "Flow D"))
        #expect(try builder.build().renderedPages == ["flows/flow-d.html"])
        try behaviour.expectEqualToACleanBuild(scratch)
        try FileManager.default.removeItem(atPath: scratch.root + "/flows/a.md")
        #expect(try builder.build().succeeded)
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/flows/flow-a.html"))
        try behaviour.expectEqualToACleanBuild(scratch)
        try scratch.write("flows/b-vi.md", sampleSpec(id: "flow-b-vi", title: "Luồng B mới", lang: "vi", translationOf: "flow-b"))
        #expect(try builder.build().renderedPages == ["flows/flow-b-vi.html", "flows/flow-b.html"])
        try behaviour.expectEqualToACleanBuild(scratch)

        // Project assets: added, changed, removed.
        try scratch.write("site/assets/img/logo.svg", "<svg/>")
        #expect(try builder.build().succeeded)
        #expect(try scratch.read("assets/img/logo.svg") == "<svg/>")
        try behaviour.expectEqualToACleanBuild(scratch)
        try scratch.write("site/assets/img/logo.svg", "<svg></svg>")
        #expect(try builder.build().succeeded)
        try behaviour.expectEqualToACleanBuild(scratch)
        try FileManager.default.removeItem(atPath: scratch.root + "/site/assets/img/logo.svg")
        #expect(try builder.build().succeeded)
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/assets/img/logo.svg"))

        // What a full build would not have: a stray file, a leftover of an interrupted replace.
        try scratch.write("site/_build/stray.txt", "x")
        try scratch.write("site/_build/flows/.flow-b.html.tmp-1", "half")
        try scratch.write("site/_build/flows/gone.html", "old page")
        #expect(try builder.build().succeeded)
        try behaviour.expectEqualToACleanBuild(scratch)

        // A theme override changes every page: a full build (new tree), then in place again.
        try scratch.write("site/theme/assets/extra.css", "body { color: red }")
        report = try builder.build()
        #expect(report.renderedPages.count == 4)
        try behaviour.expectEqualToACleanBuild(scratch)
        try scratch.write("site/theme/assets/extra.css", "body { color: blue }")
        #expect(try builder.build().renderedPages.count == 4, "the remembered theme was used after its file changed")
        #expect(try scratch.read("assets/extra.css") == "body { color: blue }")
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// A card with languages is remembered with the theme it was made with: a new template for
    /// it shows on the index at once, though no card's own inputs changed.
    @Test func rememberedCardsFollowTheTheme() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        let builder = builder(scratch, memory: SiteBuildMemory())
        #expect(try builder.build().succeeded)
        #expect(try scratch.read("index.html").contains("class=\"card-languages\""))
        try scratch.write("site/theme/templates/card-languages.mustache", "<p class=\"other-languages\">{{#links}}{{lang}} {{/links}}</p>")
        #expect(try builder.build().succeeded)
        let index = try scratch.read("index.html")
        #expect(index.contains("<p class=\"other-languages\">vi </p>"))
        #expect(!index.contains("class=\"card-languages\""))
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// A remembered page key is reused only while the OpenAPI description it was made with has
    /// the same content: editing the description re-renders the pages that name it, only those.
    @Test func anEditedDescriptionRerendersItsPagesOnly() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        try scratch.write("flows/described.md", OperationLinkTests.spec)
        try scratch.write("openapi/api.yaml", OperationLinkTests.description)
        let builder = builder(scratch, memory: SiteBuildMemory())
        #expect(try builder.build().succeeded)
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A2"))
        #expect(try builder.build().renderedPages == ["flows/flow-a.html"])
        try scratch.write("openapi/api.yaml", OperationLinkTests.description.replacingOccurrences(of: "summary: \"Sign in", with: "summary: \"Log in"))
        #expect(try builder.build().renderedPages == ["flows/described.html"])
        #expect(try scratch.read("flows/described.html").contains("Log in &lt;img"))
        #expect(try builder.build().renderedPages.isEmpty)
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// A project provider profile decides which cases a rule lists (one extending Google's gets
    /// C18, `azp` naming another client): editing it re-renders the pages, with `build` as with
    /// `serve`'s memory.
    @Test(arguments: [false, true])
    func anEditedProviderProfileRerendersThePages(remembering: Bool) throws {
        let scratch = try Scratch()
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A").replacingOccurrences(of: "provider: apple", with: "provider: acme"))
        try scratch.write("flows/acme.provider.yml", "extends: oidc\nname: ACME IdP\nissuers: [https://id.acme.example]\n")
        let builder = remembering ? builder(scratch, memory: SiteBuildMemory()) : SiteBuilder(options: scratch.options())
        let first = try builder.build()
        #expect(first.succeeded, "\(first.diagnostics)")
        #expect(first.providerProfiles == [scratch.root + "/flows/acme.provider.yml"])
        let before = try scratch.read("flows/flow-a.html")
        #expect(!before.contains("id=\"case-audience-c18\""))
        try scratch.write("flows/acme.provider.yml", "extends: google\nname: ACME IdP\nissuers: [https://id.acme.example]\n")
        let report = try builder.build()
        #expect(report.renderedPages == ["flows/flow-a.html"])
        #expect(try scratch.read("flows/flow-a.html").contains("id=\"case-audience-c18\""))
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// The memory is trusted only while the files it came from are unchanged: a build by someone
    /// else in between (here a one-off `build` of another edit) is read from disk.
    @Test func anotherBuildInBetweenIsReadFromDisk() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        let memory = SiteBuildMemory()
        let builder = builder(scratch, memory: memory)
        #expect(try builder.build().succeeded)
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A by build"))
        #expect(try scratch.build().renderedPages == ["flows/flow-a.html"])
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C by serve"))
        let report = try builder.build()
        // Had it started from its memory, flow-a's page would count as changed again.
        #expect(report.renderedPages == ["flows/flow-c.html"])
        #expect(try scratch.read("index.html").contains("Flow A by build"))
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// Lint errors leave the served site as it was; the fix brings it up to date.
    @Test func lintErrorsLeaveTheSiteAsItWas() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        let builder = builder(scratch, memory: SiteBuildMemory())
        #expect(try builder.build().succeeded)
        try scratch.write("flows/b.md", sampleSpec(id: "flow-b", title: "Flow B2"))
        #expect(try builder.build().succeeded)
        let before = try Scratch.snapshot(scratch.out)
        try scratch.write("flows/c.md", sampleSpec(id: "flow-a", title: "Copy of A"))
        #expect(try !builder.build().succeeded)
        #expect(try Scratch.snapshot(scratch.out) == before)
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C fixed"))
        #expect(try builder.build().succeeded)
        try behaviour.expectEqualToACleanBuild(scratch)
    }

    /// A write that fails half-way leaves every file whole and the cache invalidated: the next
    /// build is a full one, and its site equals a clean build.
    @Test func aFailedUpdateMakesTheNextBuildAFullOne() throws {
        let scratch = try Scratch()
        try behaviour.threeFlows(scratch)
        let builder = builder(scratch, memory: SiteBuildMemory())
        #expect(try builder.build().succeeded)
        // A folder where flow-c's page is: renaming the new page over it fails.
        try FileManager.default.removeItem(atPath: scratch.out + "/flows/flow-c.html")
        try scratch.write("site/_build/flows/flow-c.html/blocker", "x")
        try scratch.write("flows/a.md", sampleSpec(id: "flow-a", title: "Flow A2"))
        try scratch.write("flows/c.md", sampleSpec(id: "flow-c", title: "Flow C2"))
        #expect(throws: SiteBuildError.self) { try builder.build() }
        try FileManager.default.removeItem(atPath: scratch.out + "/flows/flow-c.html")
        let report = try builder.build()
        #expect(report.renderedPages.count == 4, "the build after a failed update was not a full one")
        try behaviour.expectEqualToACleanBuild(scratch)
    }
}
