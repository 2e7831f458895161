import FlowModel
import FlowParser
import Foundation
import Testing
import TestSupport
@testable import FlowSite

/// The site's prose is rendered while the spec is parsed, from the spec's own nodes
/// (`SpecParser.renderingProse`), instead of parsing each block's source a second time. What
/// the site shows must not change: for every top-level prose block, the HTML and the search
/// text rendered from the nodes must be what rendering the block's source on its own gives,
/// with raw HTML allowed and not — on every flow of flows/, and on random mixes of every
/// construct placed both in a section and in a step.
@Suite("Prose rendered from the spec's parse")
struct RenderedProseTests {
    static let modes = [false, true]

    @Test func everyProseBlockOfTheFlowsRendersAsItsSourceDoes() throws {
        let directory = URL(fileURLWithPath: packageRoot).appendingPathComponent("flows")
        var blocks = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".md") {
            for allowRawHTML in Self.modes {
                let parser = SpecParser(renderingProse: ProseRendering(allowRawHTML: allowRawHTML))
                let flow = try #require(parser.parse(fileAt: directory.appendingPathComponent(name).path).flow)
                for markdown in Self.prose(of: flow) {
                    blocks += 1
                    try Self.expectSameAsSource(markdown, allowRawHTML: allowRawHTML, "\(name)")
                }
                // Notes inside an alternate's list item are left to be rendered from their source.
                #expect(flow.steps.flatMap(\.alternates).allSatisfy { $0.note?.rendered == nil })
            }
        }
        #expect(blocks > 100)
    }

    /// Seeded mixes of 1–6 constructs (those of `SearchTextTests`, and a dangerous link), as the
    /// prose of a section and of a step of one spec.
    @Test func randomMixesRenderAsTheirSourceDoes() throws {
        let constructs = SearchTextTests.constructs + ["A [bad link](javascript:alert(1)) and ![img](vbscript:x)."]
        var generator = SplitMix(seed: 0x9205E)
        var blocks = 0
        for round in 0..<400 {
            func mix() -> String {
                let parts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in constructs.randomElement(using: &generator)! }
                return parts.joined(separator: ["\n\n", "\n", ""].randomElement(using: &generator)!)
            }
            let spec = """
                ---
                id: mix-\(round)
                title: Mix \(round)
                actors:
                  user: { name: User, role: person }
                  app: { name: App, role: client }
                ---

                ## Intro

                \(mix())

                ## Steps

                ### 1. Open

                user → app

                \(mix())

                ## After

                \(mix())

                """
            let allowRawHTML = round % 2 == 1
            let parser = SpecParser(renderingProse: ProseRendering(allowRawHTML: allowRawHTML))
            let flow = try #require(parser.parse(bytes: Array(spec.utf8), file: "mix.md").flow)
            for markdown in Self.prose(of: flow) {
                blocks += 1
                try Self.expectSameAsSource(markdown, allowRawHTML: allowRawHTML, "round \(round)")
                // (The link's text may stay text, in a code block for one: never a target.)
                let html = try #require(markdown.rendered?.html)
                #expect(!html.contains("=\"javascript:") && !html.contains("=\"vbscript:"), "round \(round): \(html)")
            }
        }
        #expect(blocks > 800)
    }

    /// A parser not asked to render prose renders none (lint and check do not pay for it), and
    /// what it renders is no part of a block's value.
    @Test func proseIsRenderedOnlyWhenAsked() throws {
        let path = URL(fileURLWithPath: packageRoot).appendingPathComponent("flows/password-login.md").path
        let plain = try #require(SpecParser().parse(fileAt: path).flow)
        let rendered = try #require(SpecParser(renderingProse: ProseRendering(allowRawHTML: false)).parse(fileAt: path).flow)
        #expect(Self.prose(of: plain).allSatisfy { $0.rendered == nil })
        #expect(Self.prose(of: rendered).allSatisfy { $0.rendered != nil })
        #expect(plain == rendered)
    }

    static func prose(of flow: Flow) -> [Markdown] {
        (flow.steps.map(\.prose) + flow.sections.map(\.body)).filter { !$0.isEmpty }
    }

    static func expectSameAsSource(_ markdown: Markdown, allowRawHTML: Bool, _ context: String) throws {
        let rendered = try #require(markdown.rendered, "\(context): \(markdown.source.debugDescription)")
        #expect(rendered.allowRawHTML == allowRawHTML)
        let source = Markdown(source: markdown.source, location: markdown.location)
        #expect(rendered.html == MarkdownRenderer.html(source, allowRawHTML: allowRawHTML), "\(context): \(markdown.source.debugDescription)")
        #expect(rendered.searchText == MarkdownRenderer.searchText(source), "\(context): \(markdown.source.debugDescription)")
    }
}
