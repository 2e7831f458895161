import Foundation
import Testing
import TestSupport
@testable import FlowSite

/// `edit-url` and `revision` of site.yml: an "Edit this page" link on flow pages and the git
/// revision in every footer, both only when asked for, in the page's language, escaped; outside
/// a git checkout the build succeeds without a revision.
@Suite("Edit link and revision")
struct EditLinkAndRevisionTests {
    static func git(_ arguments: [String], in directory: String) throws -> String {
        let git = try #require(which("git"), "git is missing")
        let run = try runProcess(git, ["-C", directory, "-c", "user.name=flowspec test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"] + arguments)
        #expect(run.status == 0, "git \(arguments): \(run.output)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func editLinkAndRevisionWhenAskedFor() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec(lang: "vi"))
        try scratch.write("site/site.yml", "title: Test flows\nedit-url: \"https://example.test/edit/main/{path}?a=1&b=<x>\"\nrevision: true\n")
        _ = try Self.git(["init", "-q"], in: scratch.root)
        _ = try Self.git(["add", "-A"], in: scratch.root)
        _ = try Self.git(["commit", "-q", "-m", "specs"], in: scratch.root)
        let head = try Self.git(["rev-parse", "HEAD"], in: scratch.root)
        #expect(try scratch.build(incremental: false).succeeded)
        let page = try scratch.read("flows/sample.html")
        let path = scratch.root + "/flows/sample.md"
        #expect(page.contains("<p class=\"edit-link\"><a href=\"https://example.test/edit/main/\(path)?a=1&amp;b=&lt;x&gt;\">Sửa trang này</a></p>"), "no escaped edit link")
        // The footer names the commit: a 12-digit prefix of HEAD, in the page's language.
        let footer = try #require(page.firstMatch(of: /dựng từ bản sửa đổi <code class="revision">([0-9a-f]+)<\/code>/))
        #expect(footer.output.1.count == 12 && head.hasPrefix(String(footer.output.1)))
        let index = try scratch.read("index.html")
        #expect(index.contains("built from revision <code class=\"revision\">\(head.prefix(12))</code>"))
        #expect(!index.contains("edit-link"))

        // A new commit: the incremental build rewrites the footers.
        try scratch.write("README.md", "x\n")
        _ = try Self.git(["add", "-A"], in: scratch.root)
        _ = try Self.git(["commit", "-q", "-m", "more"], in: scratch.root)
        let next = try Self.git(["rev-parse", "HEAD"], in: scratch.root)
        #expect(try scratch.build().succeeded)
        #expect(try scratch.read("flows/sample.html").contains("<code class=\"revision\">\(next.prefix(12))</code>"))
    }

    @Test func neitherWithoutTheSettingsNorOutsideACheckout() throws {
        let scratch = try Scratch()
        try scratch.write("flows/sample.md", sampleSpec())
        _ = try Self.git(["init", "-q"], in: scratch.root)
        _ = try Self.git(["add", "-A"], in: scratch.root)
        _ = try Self.git(["commit", "-q", "-m", "specs"], in: scratch.root)
        #expect(try scratch.build(incremental: false).succeeded)
        let page = try scratch.read("flows/sample.html")
        #expect(!page.contains("edit-link") && !page.contains("class=\"revision\""))

        // Asked for, but no checkout (the scratch folder is outside any repository): no revision, no failure.
        let plain = try Scratch()
        try plain.write("flows/sample.md", sampleSpec())
        try plain.write("site/site.yml", "title: Test flows\nrevision: true\n")
        #expect(try plain.build(incremental: false).succeeded)
        #expect(!(try plain.read("flows/sample.html")).contains("class=\"revision\""))
        #expect(GitRevision.short(in: plain.root) == nil)
    }

    @Test func editURLMustBeHTTPWithAPath() {
        #expect(throws: SiteConfig.Error.self) { try SiteConfig.parse("edit-url: \"javascript:alert(1)//{path}\"\n", file: "site.yml") }
        #expect(throws: SiteConfig.Error.self) { try SiteConfig.parse("edit-url: https://example.test/edit/main/\n", file: "site.yml") }
        #expect(throws: SiteConfig.Error.self) { try SiteConfig.parse("revision: maybe\n", file: "site.yml") }
    }
}
