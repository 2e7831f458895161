import FlowLint
import FlowModel
import Foundation
import Testing
@testable import FlowSite

/// Headless Chromium over the built site at 1 280 × 800 and 390 × 844: every participant box of
/// every sequence diagram is on screen (inside the viewport and not clipped by any ancestor) or
/// inside a scroll region labelled by a visible element, no two text boxes of a diagram overlap,
/// every text stays inside its SVG, a failing arrow's head has its line's colour, and the
/// actual-size view (`#sequence-view`) shows the diagram at its natural width.
///
/// Measured from the DOM as laid out: the test adds `Fixtures/diagram-measure.js` to a copy of
/// each page, which writes the boxes (`getBoundingClientRect`) as JSON into the page for
/// `--dump-dom`. Screenshots go to test-artifacts/diagrams-*.png.
@Suite("Diagram browser", .serialized)
struct DiagramBrowserTests {
    struct Measure: Decodable {
        struct Rect: Decodable, CustomStringConvertible {
            let l, t, r, b: Double
            var description: String { "[\(Int(l.rounded())),\(Int(t.rounded()))–\(Int(r.rounded())),\(Int(b.rounded()))]" }
        }
        struct Text: Decodable { let cls: String; let text: String; let box: Rect; let size: Double }
        struct Region: Decodable { let left: Double; let width: Double; let label: String }
        struct Participant: Decodable { let name: String; let box: Rect; let shown: Bool; let region: Region? }
        struct Failing: Decodable { let line: String; let head: String }
        struct SVG: Decodable { let cls: String; let natural: Double; let box: Rect; let texts: [Text]; let participants: [Participant]; let failing: [Failing] }
        struct Viewport: Decodable { let w: Double; let h: Double }
        let viewport: Viewport
        let docScrollWidth: Double
        let svgs: [SVG]
    }

    static let viewports = [(width: 1280, height: 800), (width: 390, height: 844)]

    /// Writes `frame.html` into the site: `page` (relative to the site) in an iframe of exactly
    /// `width` × `height` (headless windows are at least 500 px wide, so a phone viewport needs a
    /// frame), and the window size to load it in. The frame's page posts its measurement, if
    /// any, to the frame page, which appends it as `<pre id="flowspec-measure">`.
    static func frame(site: String, page: String, width: Int, height: Int) throws -> String {
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>frame</title>
            <style>body { margin: 0; } iframe { border: 0; display: block; }</style>
            <script>addEventListener("message", function (e) { var pre = document.createElement("pre"); pre.id = "flowspec-measure"; pre.textContent = e.data; document.body.appendChild(pre); });</script>
            </head><body><iframe src="\(page)" width="\(width)" height="\(height)"></iframe></body></html>
            """
        try html.write(toFile: site + "/frame.html", atomically: true, encoding: .utf8)
        return "--window-size=\(max(width, 500)),\(height)"
    }

    /// Loads a copy of `page` (relative to the site) with the measuring script added, in a
    /// `width` × `height` viewport, and returns what the script measured.
    static func measure(site: String, page: String, fragment: String = "", width: Int, height: Int) async throws -> Measure {
        let script = try String(contentsOfFile: packageRoot + "/Tests/FlowSiteTests/Fixtures/diagram-measure.js", encoding: .utf8)
        try script.write(toFile: site + "/assets/diagram-measure.js", atomically: true, encoding: .utf8)
        let html = try String(contentsOfFile: site + "/" + page, encoding: .utf8)
        let copy = page.replacingOccurrences(of: ".html", with: ".measure.html")
        try html.replacingOccurrences(of: "</body>", with: "<script src=\"../assets/diagram-measure.js\"></script></body>")
            .write(toFile: site + "/" + copy, atomically: true, encoding: .utf8)
        let window = try frame(site: site, page: copy + fragment, width: width, height: height)
        let run = try await BrowserTests.run([window, "--virtual-time-budget=10000", "--dump-dom", "file://" + site + "/frame.html"])
        #expect(BrowserTests.consoleLines(run.stderr).isEmpty, "\(page): \(BrowserTests.consoleLines(run.stderr).joined(separator: "\n"))")
        guard let start = run.stdout.range(of: "<pre id=\"flowspec-measure\">"),
              let end = run.stdout.range(of: "</pre>", range: start.upperBound..<run.stdout.endIndex) else {
            Issue.record("\(page) at \(width)×\(height): no measurement (status \(run.status)) \(run.stderr.suffix(1500))")
            throw CancellationError()
        }
        let json = run.stdout[start.upperBound..<end.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Measure.self, from: Data(json.utf8))
    }

    /// What a reviewer would see wrong, one sentence per problem.
    static func problems(_ measure: Measure) -> [String] {
        var problems: [String] = []
        for svg in measure.svgs {
            for participant in svg.participants where !participant.shown {
                guard let region = participant.region, !region.label.isEmpty else {
                    problems.append("\(svg.cls): participant \"\(participant.name)\" \(participant.box) is cut off and not in a scroll region with a visible label")
                    continue
                }
                if participant.box.l < region.left || participant.box.r > region.left + region.width {
                    problems.append("\(svg.cls): participant \"\(participant.name)\" \(participant.box) lies beyond its scroll region")
                }
            }
            for (index, a) in svg.texts.enumerated() {
                if a.box.l < svg.box.l || a.box.r > svg.box.r || a.box.t < svg.box.t || a.box.b > svg.box.b {
                    problems.append("\(svg.cls): \"\(a.text)\" \(a.box) leaves the SVG \(svg.box)")
                }
                for b in svg.texts[(index + 1)...] where a.box.l < b.box.r && b.box.l < a.box.r && a.box.t < b.box.b && b.box.t < a.box.b {
                    problems.append("\(svg.cls): \"\(a.text)\" \(a.box) overlaps \"\(b.text)\" \(b.box)")
                }
            }
            for failing in svg.failing where failing.line != failing.head {
                problems.append("\(svg.cls): a failing arrow's line is \(failing.line) but its head \(failing.head)")
            }
        }
        return problems
    }

    @Test func participantsShownAndTextsApartOnDesktopAndPhone() async throws {
        let scratch = try Scratch()
        let flows = try BrowserTests.buildRepositorySite(into: scratch.out)
        #expect(flows.count >= 8)
        for viewport in Self.viewports {
            for flow in flows {
                let measure = try await Self.measure(site: scratch.out, page: "flows/\(flow.id).html", width: viewport.width, height: viewport.height)
                #expect(measure.viewport.w == Double(viewport.width), "the page was laid out \(measure.viewport.w) px wide")
                #expect(measure.svgs.count == 2)
                #expect(measure.svgs.first?.participants.count == flow.actors.count * 2)
                let problems = Self.problems(measure)
                #expect(problems.isEmpty, "\(flow.id) at \(viewport.width)×\(viewport.height):\n\(problems.joined(separator: "\n"))")
                if viewport.width == 1280 {
                    // Fitted: every participant on screen at desktop width, no scrolling needed.
                    #expect(measure.svgs.allSatisfy { $0.participants.allSatisfy(\.shown) }, "\(flow.id): a participant needs scrolling at 1280 px")
                }
            }
        }
    }

    @Test func actualSizeViewAndFailingArrowHeads() async throws {
        let scratch = try Scratch()
        let flows = Linter().lint(paths: [packageRoot + "/flows"]).flows
        let flow = try #require(flows.first { $0.lang == "tr" })
        let failing = try #require(flow.steps.last { $0.from != $0.to }?.number)
        let results = SiteResults(label: "test", flows: [.init(flow: flow.id, steps: [.init(step: failing, verdict: .init(status: .fail, evidence: "expected 200, got 500"))], cases: [])])
        let report = try SiteBuilder(options: SiteBuildOptions(
            inputs: [packageRoot + "/flows"], outputDirectory: scratch.out, configPath: packageRoot + "/site/site.yml", results: results
        )).build()
        #expect(report.succeeded)
        let page = "flows/\(flow.id).html"

        let fitted = try await Self.measure(site: scratch.out, page: page, width: 1280, height: 800)
        let sequence = try #require(fitted.svgs.first)
        #expect(sequence.failing.count == 1)
        #expect(sequence.failing.first.map { $0.head == $0.line && $0.head != "none" } == true, "\(sequence.failing)")
        #expect(Self.problems(fitted).isEmpty, "\(Self.problems(fitted).joined(separator: "\n"))")

        // The actual-size view: the diagram at its natural width, full screen.
        for viewport in Self.viewports {
            let full = try await Self.measure(site: scratch.out, page: page, fragment: "#sequence-view", width: viewport.width, height: viewport.height)
            let svg = try #require(full.svgs.first)
            #expect(abs((svg.box.r - svg.box.l) - svg.natural) < 1, "actual size: \(svg.box) for a \(svg.natural) px diagram")
            #expect(svg.box.t >= 0 && svg.box.t < Double(viewport.height), "the full-screen view starts on screen: \(svg.box)")
        }
    }

    /// Printed (`--print-to-pdf`, Letter portrait by default), the sequence diagram gets
    /// landscape pages of its own, so it is drawn at the full page width (~980 px instead of
    /// ~740 px: text ~10 px instead of ~7 px); the rest of the page stays portrait.
    @Test func printPutsTheSequenceDiagramOnLandscapePages() async throws {
        let scratch = try Scratch()
        let flows = try BrowserTests.buildRepositorySite(into: scratch.out)
        let flow = try #require(flows.first { $0.lang == "tr" })
        let pdf = scratch.root + "/page.pdf"
        let run = try await BrowserTests.run(["--no-pdf-header-footer", "--print-to-pdf=" + pdf, "file://" + scratch.out + "/flows/\(flow.id).html"])
        let data = try #require(FileManager.default.contents(atPath: pdf), "no PDF: \(run.stderr.suffix(1500))")
        let text = String(decoding: data, as: UTF8.self)
        let pattern = try NSRegularExpression(pattern: "/MediaBox\\s*\\[\\s*0 0 ([0-9.]+) ([0-9.]+)\\s*\\]")
        let pages = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (Double(text[Range(match.range(at: 1), in: text)!]) ?? 0, Double(text[Range(match.range(at: 2), in: text)!]) ?? 0)
        }
        #expect(pages.count > 2)
        #expect(pages.first.map { $0.0 < $0.1 } == true, "the page starts in portrait")
        #expect(pages.contains { $0.0 > $0.1 }, "no landscape page in \(pages)")
    }

    @Test func screenshotsOfTheDiagrams() async throws {
        let scratch = try Scratch()
        let flows = try BrowserTests.buildRepositorySite(into: scratch.out)
        let flow = try #require(flows.first { $0.lang == "tr" })
        let artifacts = packageRoot + "/test-artifacts"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let page = "flows/\(flow.id).html"
        let shots = [
            ("diagrams-desktop.png", page, 1280, 5200),
            ("diagrams-phone.png", page, 390, 7000),
            ("diagram-actual-size.png", page + "#sequence-view", 1280, 800),
            ("diagram-actual-size-phone.png", page + "#sequence-view", 390, 844),
        ]
        for (name, address, width, height) in shots {
            let png = artifacts + "/" + name
            try? FileManager.default.removeItem(atPath: png)
            let window = try Self.frame(site: scratch.out, page: address, width: width, height: height)
            let run = try await BrowserTests.run([window, "--virtual-time-budget=5000", "--screenshot=" + png, "file://" + scratch.out + "/frame.html"])
            let data = try #require(FileManager.default.contents(atPath: png), "no screenshot \(name): \(run.stderr.suffix(1500))")
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }
}
