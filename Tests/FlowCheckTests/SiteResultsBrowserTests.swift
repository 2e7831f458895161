import FlowCheck
@testable import FlowCLI
import FlowSite
import Foundation
import TestSupport
import Testing

/// The results overlay read in headless Chromium as a reviewer reads it, at 1 280 × 800 and
/// 390 × 844, light and dark, for a run that passes and one with a defect (`--defect
/// skip-nonce`): step prose keeps ≥ 4.5 : 1 contrast whatever the verdict; the counts on the
/// flow page and on the index equal the JSON report's, counted here from its `results`; a step
/// no item reached says where it was blocked. Screenshots and PDFs go to test-artifacts/.
@Suite("Site results in a browser", .serialized)
struct SiteResultsBrowserTests {
    static let flowID = "apple-sign-in-web"
    static let artifacts = Fixtures.repositoryRoot.appendingPathComponent("test-artifacts").path

    struct Probe: Decodable {
        struct Prose: Decodable { var step: String; var verdict: String; var ratio: Double }
        struct Step: Decodable { var id: String; var verdict: String; var length: Int; var last: String; var line: String }
        var dark: Bool
        var width: Int
        var prose: [Prose]
        var counts: [String: Int]
        var steps: [Step]
    }

    /// `flowspec check flows --flow … --report json:…` against the embedded mock.
    static func check(_ extra: [String], into json: URL) async throws -> [String: Any] {
        let output = CapturedOutput()
        _ = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", flowID, "--concurrency", "8", "--report", "json:\(json.path)"] + extra, console: output.console)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        return try #require(object, "no JSON report: \(output.text.suffix(1500))")
    }

    /// The report's counts by verdict, counted from its items (the oracle: not the site's code).
    static func counts(_ report: [String: Any], flow: String?) -> [String: Int] {
        let items = (report["results"] as? [[String: Any]] ?? []).filter { flow == nil || $0["flowID"] as? String == flow }
        var counts = ["total": items.count]
        for key in ["pass", "fail", "error", "inconclusive", "not-executable", "info"] {
            counts[key] = items.filter { $0["verdict"] as? String == key }.count
        }
        return counts
    }

    /// Steps every item that visited them skipped: the page must say they were not reached.
    static func unreachedSteps(_ report: [String: Any], flow: String) -> Set<Int> {
        var verdicts: [Int: Set<String>] = [:]
        for item in report["results"] as? [[String: Any]] ?? [] where item["flowID"] as? String == flow {
            for step in item["steps"] as? [[String: Any]] ?? [] {
                if let number = step["step"] as? Int, let verdict = step["verdict"] as? String { verdicts[number, default: []].insert(verdict) }
            }
        }
        return Set(verdicts.filter { $0.value == ["skipped"] }.keys)
    }

    /// Loads a copy of `page` with the probe script added, in the given size and colour scheme.
    static func probe(site: String, page: String, width: Int, height: Int, dark: Bool, screenshot: String? = nil) async throws -> Probe {
        try FileManager.default.createDirectory(atPath: site + "/assets/test", withIntermediateDirectories: true)
        for name in ["probe.js", "frame.js"] where !FileManager.default.fileExists(atPath: site + "/assets/test/" + name) {
            try FileManager.default.copyItem(atPath: Fixtures.path("site-probe/" + name), toPath: site + "/assets/test/" + name)
        }
        let depth = page.split(separator: "/").count - 1
        let html = try String(contentsOfFile: site + "/" + page, encoding: .utf8)
        let probed = html.replacingOccurrences(of: "</head>", with: "<script src=\"" + String(repeating: "../", count: depth) + "assets/test/probe.js\" defer></script>\n</head>")
        let copy = (page as NSString).deletingPathExtension + "-probe.html"
        try Data(probed.utf8).write(to: URL(fileURLWithPath: site + "/" + copy))
        let scheme = ["--blink-settings=preferredColorScheme=" + (dark ? "0" : "1")] + (dark ? ["--force-dark-mode"] : [])
        // Headless windows are at least 500 px wide: a phone is an iframe of its width.
        var target = copy
        var size = "--window-size=\(width),\(height)"
        if width < 500 {
            target = (page as NSString).deletingPathExtension + "-frame.html"
            let frame = "<!doctype html><html><head><meta charset=\"utf-8\"><script src=\"" + String(repeating: "../", count: depth)
                + "assets/test/frame.js\"></script></head><body style=\"margin:0\"><iframe src=\"" + (copy as NSString).lastPathComponent
                + "\" style=\"width:\(width)px;height:\(height)px;border:0;display:block\"></iframe></body></html>\n"
            try Data(frame.utf8).write(to: URL(fileURLWithPath: site + "/" + target))
            size = "--window-size=500,\(height)"
        }
        let run = try await Chromium.run(scheme + [size, "--virtual-time-budget=5000", "--dump-dom", "file://" + site + "/" + target])
        #expect(Chromium.consoleLines(run.stderr).isEmpty, "\(page): \(Chromium.consoleLines(run.stderr))")
        if let screenshot {
            try? FileManager.default.removeItem(atPath: screenshot)
            _ = try await Chromium.run(scheme + [size, "--screenshot=" + screenshot, "file://" + site + "/" + (width < 500 ? target : page)])
            #expect(FileManager.default.contents(atPath: screenshot)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true, "no screenshot \(screenshot)")
        }
        let start = try #require(run.stdout.range(of: "<pre id=\"probe\">"), "the probe did not run on \(page): \(run.stderr.suffix(1000))")
        let end = try #require(run.stdout[start.upperBound...].range(of: "</pre>"))
        let json = try #require(String(run.stdout[start.upperBound..<end.lowerBound]).removingPercentEncoding)
        return try JSONDecoder().decode(Probe.self, from: Data(json.utf8))
    }

    static func buildSite(results json: URL, into out: String) throws {
        let results = try ResultsInput.load(path: json.path)
        let config = Fixtures.repositoryRoot.appendingPathComponent("site/site.yml").path
        let report = try SiteBuilder(options: SiteBuildOptions(inputs: [Fixtures.repositoryFlows], outputDirectory: out, configPath: config, results: results)).build()
        #expect(report.succeeded)
    }

    @Test(arguments: [("pass", [String]()), ("fail", ["--defect", "skip-nonce"])])
    func verdictsReadRightAndCountsMatchTheReport(run: String, extra: [String]) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-results-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let json = scratch.appendingPathComponent("report.json")
        let report = try await Self.check(extra, into: json)
        let expected = Self.counts(report, flow: Self.flowID)
        if run == "fail" { #expect(expected["fail"]! > 0, "the defect run must fail something") } else { #expect(expected["fail"]! == 0 && expected["pass"]! > 0) }
        let site = scratch.appendingPathComponent("site").path
        try Self.buildSite(results: json, into: site)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)

        let unreached = Self.unreachedSteps(report, flow: Self.flowID)
        for (width, height) in [(1280, 800), (390, 844)] {
            for dark in [false, true] {
                let name = "site-results-\(run)-\(width)-\(dark ? "dark" : "light").png"
                let probe = try await Self.probe(site: site, page: "flows/\(Self.flowID).html", width: width, height: height, dark: dark, screenshot: Self.artifacts + "/" + name)
                #expect(probe.dark == dark, "colour scheme not applied")
                #expect(probe.width == width, "viewport \(probe.width), not \(width)")
                #expect(!probe.prose.isEmpty)
                let verdicts = Set(probe.prose.map(\.verdict))
                #expect(verdicts.contains("pass"), "no passed step measured")
                if run == "fail" { #expect(verdicts.contains("fail"), "no failed step measured") }
                for prose in probe.prose where prose.ratio < 4.5 {
                    Issue.record("\(run) \(width)px \(dark ? "dark" : "light"): \(prose.step) (\(prose.verdict)) prose contrast \(String(format: "%.2f", prose.ratio)) < 4.5")
                }
                #expect(probe.counts == expected, "page counts \(probe.counts) ≠ report \(expected)")
                for step in probe.steps where unreached.contains(Int(step.id.dropFirst("step-".count)) ?? -1) {
                    #expect(step.verdict == "not-reached" && step.line.contains("blocked at step"), "\(step.id): \(step.line)")
                }
            }
        }
        if run == "fail" { #expect(!unreached.isEmpty || expected["fail"]! > 0) }
        let index = try await Self.probe(site: site, page: "index.html", width: 1280, height: 800, dark: false, screenshot: Self.artifacts + "/site-results-\(run)-index.png")
        #expect(index.counts == Self.counts(report, flow: nil), "index counts \(index.counts)")
        let pdf = Self.artifacts + "/site-results-\(run).pdf"
        try? FileManager.default.removeItem(atPath: pdf)
        _ = try await Chromium.run(["--no-pdf-header-footer", "--print-to-pdf=" + pdf, "file://" + site + "/flows/\(Self.flowID).html"])
        let bytes = try #require(FileManager.default.contents(atPath: pdf), "no PDF")
        #expect(bytes.starts(with: Array("%PDF".utf8)) && bytes.count > 20_000)
        // The print opens the token cases: words that are on the page only inside a closed
        // `<details class="cases">` (case titles, conformance ids, evidence) are in the PDF.
        let pdftotext = try #require(which("pdftotext"), "pdftotext is missing (Debian poppler-utils; scripts/setup.sh --test)")
        let printed = try runProcess(pdftotext, ["-enc", "UTF-8", pdf, "-"])
        #expect(printed.status == 0, "\(printed.output.prefix(500))")
        let html = try String(contentsOfFile: site + "/flows/\(Self.flowID).html", encoding: .utf8)
        let hidden = Self.wordsOnlyInClosedCaseDetails(html)
        #expect(hidden.count >= 5, "too few words only inside closed case details: \(hidden)")
        let text = printed.output.lowercased()
        let missing = hidden.filter { !text.contains($0) }
        #expect(missing.isEmpty, "token-case details not printed, missing: \(missing)")
    }

    /// Plain ASCII words (7+ letters, lowercased) that a page has only inside the closed token-case
    /// `<details>` (not in their visible `<summary>`), sorted.
    static func wordsOnlyInClosedCaseDetails(_ html: String) -> [String] {
        func words(_ fragment: String) -> Set<String> {
            let text = fragment.replacing(/<[^>]*>/, with: " ").replacing(/&[#a-zA-Z0-9]+;/, with: " ")
            return Set(text.split { !($0.isASCII && $0.isLetter) }.map { $0.lowercased() }.filter { $0.count >= 7 })
        }
        var outside = html
        var inside = ""
        for match in html.matches(of: /<details class="cases">(?s:(.*?))<\/details>/) {
            inside += String(match.output.1).replacing(/<summary>(?s:.*?)<\/summary>/, with: " ")
            outside = outside.replacingOccurrences(of: String(match.output.0), with: " ")
        }
        return words(inside).subtracting(words(outside)).sorted()
    }

    /// Search indexes whole steps: a word only in the last paragraph of the longest step (read
    /// from the page in the browser) finds that step.
    @Test func searchFindsAWordFromTheLastParagraphOfALongStep() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-search-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let site = scratch.appendingPathComponent("site").path
        let config = Fixtures.repositoryRoot.appendingPathComponent("site/site.yml").path
        #expect(try SiteBuilder(options: SiteBuildOptions(inputs: [Fixtures.repositoryFlows], outputDirectory: site, configPath: config)).build().succeeded)
        let probe = try await Self.probe(site: site, page: "flows/\(Self.flowID).html", width: 1280, height: 800, dark: false)
        let long = try #require(probe.steps.max { $0.length < $1.length })
        #expect(long.length > 240, "the longest step is short (\(long.length))")
        let pageText = probe.steps.map(\.last).joined(separator: " ").lowercased()
        // The longest plain word of the last paragraph that no other step's last paragraph has.
        let words = long.last.split { !$0.isLetter }.map(String.init).filter { $0.count >= 5 }
        let word = try #require(words.sorted { $0.count > $1.count }.first { pageText.components(separatedBy: $0.lowercased()).count == 2 } ?? words.max { $0.count < $1.count })
        let run = try await Chromium.run(["--dump-dom", "file://" + site + "/search.html?q=" + word])
        #expect(run.stdout.contains("href=\"flows/\(Self.flowID).html#\(long.id)\""), "search for \(word) did not find \(long.id)")
        let artifacts = Self.artifacts
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        _ = try await Chromium.run(["--window-size=1280,800", "--screenshot=" + artifacts + "/site-search.png", "file://" + site + "/search.html?q=" + word])
    }

    /// The header field answers as you type on a flow page (loading the index on first use), and
    /// the search page groups results by flow and filters them by language.
    @Test func headerSearchAnswersAsYouTypeAndTheSearchPageFiltersByLanguage() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-header-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let site = scratch.appendingPathComponent("site").path
        let config = Fixtures.repositoryRoot.appendingPathComponent("site/site.yml").path
        #expect(try SiteBuilder(options: SiteBuildOptions(inputs: [Fixtures.repositoryFlows], outputDirectory: site, configPath: config)).build().succeeded)
        try FileManager.default.createDirectory(atPath: site + "/assets/test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("site-probe/header-probe.js"), toPath: site + "/assets/test/header-probe.js")
        let page = try String(contentsOfFile: site + "/flows/\(Self.flowID).html", encoding: .utf8)
            .replacingOccurrences(of: "</head>", with: "<script src=\"../assets/test/header-probe.js\" defer></script>\n</head>")
        try Data(page.utf8).write(to: URL(fileURLWithPath: site + "/flows/header-probe.html"))
        let run = try await Chromium.run(["--virtual-time-budget=8000", "--dump-dom", "file://" + site + "/flows/header-probe.html#q=nonce"])
        #expect(Chromium.consoleLines(run.stderr).isEmpty, "\(Chromium.consoleLines(run.stderr))")
        let start = try #require(run.stdout.range(of: "<pre id=\"probe\">"), "the header probe did not report")
        let end = try #require(run.stdout[start.upperBound...].range(of: "</pre>"))
        let json = try #require(String(run.stdout[start.upperBound..<end.lowerBound]).removingPercentEncoding)
        struct Answer: Decodable { var hidden: Bool; var links: [String]; var status: String }
        let answer = try JSONDecoder().decode(Answer.self, from: Data(json.utf8))
        #expect(!answer.hidden && !answer.links.isEmpty, "no answer under the header field: \(answer)")
        #expect(answer.links.allSatisfy { $0.hasPrefix("../flows/") }, "links relative to the flow page: \(answer.links)")

        // The search page: results grouped by flow; the language filter keeps one language.
        let all = try await Chromium.run(["--dump-dom", "file://" + site + "/search.html?q=token"])
        #expect(all.stdout.contains("class=\"search-group\"") && all.stdout.contains("class=\"search-group-title\""))
        #expect(all.stdout.contains("lang=\"vi\"") && all.stdout.contains("lang=\"en\""), "both languages without a filter")
        let vi = try await Chromium.run(["--dump-dom", "file://" + site + "/search.html?q=token&lang=vi"])
        let resultLangs = vi.stdout.components(separatedBy: "class=\"search-result\"><a href=").dropFirst().compactMap { part in
            part.components(separatedBy: "lang=\"").dropFirst().first?.split(separator: "\"").first.map(String.init)
        }
        #expect(!resultLangs.isEmpty && resultLangs.allSatisfy { $0 == "vi" }, "\(resultLangs)")
    }
}
