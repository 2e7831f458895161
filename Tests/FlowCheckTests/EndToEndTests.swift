@testable import FlowCLI
import FlowCheck
import FlowMocks
import FlowModel
import FlowSite
import Foundation
import Testing

/// `flowspec check` through its library entry point against the embedded mock backend: the
/// correct mock passes every scenario and case of flows/, and each `--defect` is caught by the
/// exact cases that test what it breaks.
/// Tests that start servers run one at a time: on 2 cores, parallel full checks would starve
/// the timing assertions of the hostile-backend tests.
@Suite(.serialized) enum CheckServers {}

extension CheckServers {
@Suite struct EndToEndTests {
    /// Runs `flowspec check flows/ ARGS --report json:…` in-process; returns exit code and report.
    ///
    /// With 60 s per request rather than the default 10: these tests are about verdicts, not
    /// latency, and in the full suite on 2 cores (Chromium and five flowspec processes beside
    /// them) the correct mock once left 3 of 835 requests unanswered within 10 s — "no clear
    /// rejection: timeout" — where alone the whole run takes 19 s. A hang still fails the run.
    static func check(_ arguments: [String]) async throws -> (code: Int32, report: CheckReport, output: String) {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-e2e-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let code = await CheckCLI.run(
            arguments: [Fixtures.repositoryFlows] + arguments + ["--concurrency", "8", "--timeout", "60", "--report", "json:\(json.path)"],
            console: output.console)
        let data = try #require(FileManager.default.contents(atPath: json.path), "no report written; output:\n\(output.text)")
        return (code, try JSONReport.decode(data), output.text)
    }

    /// `rule/CASE` (or `path-N`) of every failing item, variants folded.
    static func failing(_ report: CheckReport) -> Set<String> {
        Set(report.results.filter { $0.verdict.failsRun }.map { result in
            let local = result.id.split(separator: "/", maxSplits: 1).last.map(String.init) ?? result.id
            return local.split(separator: "[").first.map(String.init) ?? local
        })
    }

    @Test func correctMockPassesEverything() async throws {
        let (code, report, output) = try await Self.check([])
        #expect(code == 0, "\(output.suffix(3000))")
        #expect(report.summary.fail == 0 && report.summary.error == 0)
        #expect(report.summary.pass > 200, "the suite must actually run")
        // Every verdict of an item is backed by its steps: nothing UI-only passes.
        for result in report.results where result.verdict == .pass {
            #expect(result.steps.contains { $0.verdict == .pass && ["request", "providerCall", "providerMessage"].contains($0.kind) }, "\(result.id)")
        }
        #expect(!output.contains("eyJ") || !output.contains(".eyJ"), "no whole JWT in the console")
        try SchemaValidation.validateJSON(try JSONReport.encode(report))
        try SchemaValidation.validateJUnit(JUnitReport.render(report))
    }

    /// The verdict of every item of flows/ against the embedded mock, compared with the list
    /// committed in GoldenVerdicts/flows.txt (written by another process): a refactoring that
    /// changes one verdict, or adds or drops an item, fails here. Refresh on purpose with
    /// `FLOWSPEC_UPDATE_GOLDEN=1` (scripts/refresh-golden.sh).
    @Test func verdictsMatchTheCommittedList() async throws {
        let (_, report, output) = try await Self.check([])
        let lines = report.results.map { "\($0.id) \($0.verdict.rawValue)" }.joined(separator: "\n") + "\n"
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GoldenVerdicts/flows.txt")
        if ProcessInfo.processInfo.environment["FLOWSPEC_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(lines.utf8).write(to: golden)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        let got = Set(lines.split(separator: "\n")), want = Set(expected.split(separator: "\n"))
        #expect(lines == expected, "not in the committed list: \(got.subtracting(want).sorted().prefix(20)); missing: \(want.subtracting(got).sorted().prefix(20))\n\(output.suffix(1500))")
    }

    /// Defect → the cases that must catch it. `exact` defects must be caught by these and
    /// nothing else; the others break sign-in itself, so every case that signs in fails too.
    static let catches: [(defect: String, cases: Set<String>, exact: Bool)] = [
        ("skip-signature", ["signature/S1", "signature/S2", "key-id/S9", "key-id/S10", "notifications/N2"], true),
        ("trust-header-alg", ["algorithm/S4"], true),
        ("alg-none-accepted", ["algorithm/S3", "notifications/N2"], true),
        ("ignore-header-alg", ["algorithm/S5"], true),
        ("skip-aud", ["audience/C2", "audience/C3", "audience/C18", "exchange/X3", "notifications/N2"], true),
        ("skip-iss", ["issuer/C1", "exchange/X3", "notifications/N2"], true),
        ("skip-exp", ["expiry/C5", "expiry/C6", "notifications/N2"], true),
        ("skip-iat", ["issued-at/C7", "issued-at/C9", "issued-at/C20"], true),
        // Without a nonce check an empty nonce passes too (an absent or null one does not match
        // the step's template).
        ("skip-nonce", ["nonce/C12", "nonce/C13", "nonce/C14", "nonce/C19", "path-5"], true),
        ("nonce-optional", ["nonce/C19"], true),
        ("lenient-base64", ["signature/S13"], true),
        ("iat-string", ["issued-at/C20"], true),
        ("duplicate-claims-first-wins", ["audience/C16", "expiry/C16", "issuer/C16", "subject/C16", "nonce/C16"], true),
        ("duplicate-claims-last-wins", ["audience/C16", "expiry/C16", "issuer/C16", "subject/C16", "nonce/C16"], true),
        ("accept-replay", ["nonce/C15"], true),
        ("first-key", ["signature/P4", "signature/P5", "signature/P6", "key-id/S9", "key-id/S10"], true),
        ("kid-fallback", ["key-id/S9", "key-id/S10"], true),
        ("no-jwks-refetch", ["signature/P5", "signature/P6"], true),
        ("reject-unusable-jwks", ["signature/P5", "signature/P6"], true),
        ("accept-crit", ["algorithm/S11"], true),
        ("trust-embedded-jwk", ["key-id/S7"], true),
        ("trust-jku", ["key-id/S8"], true),
        // A padded segment is malformed too (S13).
        ("server-error-on-malformed", ["signature/S12", "signature/S13"], true),
        // The notification flow's signature rule runs S1/S2 on notifications too.
        ("ignore-notification-signature", ["notifications/N2", "signature/S1", "signature/S2"], true),
        ("skip-exchange-subject", ["exchange/X1"], true),
        ("skip-revoke", ["revocation/R1", "revocation/P1", "path-1"], false),
        ("keep-session-after-revoke", ["notifications/N1", "path-1", "path-2"], false),
        ("no-code-exchange", ["exchange/X1", "exchange/X2", "exchange/X3", "path-1"], false),
        ("nonce-unhashed", ["nonce/P1", "signature/P1", "path-1"], false),
        ("client-secret-der", ["exchange/P1", "revocation/R1", "path-1"], false),
    ]

    @Test(arguments: catches.map(\.defect))
    func defectIsCaughtByName(defect: String) async throws {
        let entry = try #require(Self.catches.first { $0.defect == defect })
        let (code, report, output) = try await Self.check(["--defect", defect])
        #expect(code == 1, "\(defect) was not caught:\n\(output.suffix(2000))")
        let failing = Self.failing(report)
        #expect(entry.cases.isSubset(of: failing), "\(defect): missing \(entry.cases.subtracting(failing).sorted()), caught by \(failing.sorted())")
        if entry.exact {
            #expect(failing == entry.cases, "\(defect): unexpected failures \(failing.subtracting(entry.cases).sorted())")
        }
        #expect(report.backend.defects == [defect])
        // Failing items that signed in carry the provider calls of their sign-in as evidence.
        if defect == "client-secret-der" {
            let exchanges = report.results.filter { $0.verdict.failsRun }.flatMap { $0.evidence?.providerRequests ?? [] }
            #expect(exchanges.contains { $0.clientSecretViolations == ["signature-der"] }, "\(defect): no provider call in the evidence")
        }
        if defect == "no-code-exchange" {
            let x1 = try #require(report.results.first { $0.id.hasSuffix("/exchange/X1") && $0.verdict.failsRun })
            #expect(x1.evidence?.providerRequests.isEmpty == true)
            #expect(x1.evidence?.notes.contains { $0.contains("no call to the provider") } == true, "\(String(describing: x1.evidence))")
        }
    }

    /// The README's main job ends with `flowspec build --results <the check's JSON report>`:
    /// the report is read as is, and a caught defect shows on the page (failing step and arrow,
    /// failing case chip, evidence) while passing steps stay passed.
    @Test func checkReportOverlaysTheSite() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-overlay-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let code = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "apple-sign-in-native", "--defect", "skip-nonce", "--concurrency", "8", "--report", "json:\(json.path)"], console: output.console)
        #expect(code == 1)
        let results = try ResultsInput.load(path: json.path)
        let native = try #require(results.result(for: "apple-sign-in-native"))
        #expect(results.label?.contains("skip-nonce") == true)
        let failedCases = native.cases.filter { $0.verdict.status == .fail }
        #expect(!failedCases.isEmpty && failedCases.allSatisfy { $0.rule.contains("nonce") }, "\(failedCases.map(\.caseID))")
        #expect(failedCases.allSatisfy { $0.verdict.item?.id.hasPrefix("apple-sign-in-native/") == true && $0.verdict.item?.caseID == $0.caseID })
        #expect(native.cases.contains { $0.verdict.status == .pass })
        let failedSteps = Set(native.steps.filter { $0.verdict.status == .fail }.map(\.step))
        #expect(!failedSteps.isEmpty)
        #expect(native.steps.contains { $0.verdict.status == .notExecutable })

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-overlay-site-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let flows = Fixtures.repositoryFlows
        let config = URL(fileURLWithPath: flows).deletingLastPathComponent().appendingPathComponent("site/site.yml").path
        let report = try SiteBuilder(options: SiteBuildOptions(inputs: [flows], outputDirectory: out, configPath: config, results: results)).build()
        #expect(report.succeeded)
        let page = try String(contentsOfFile: out + "/flows/apple-sign-in-native.html", encoding: .utf8)
        for step in failedSteps {
            #expect(page.contains("has-verdict step-verdict-fail\" id=\"step-\(step)\""), "step \(step) not marked failed")
            #expect(page.contains("msg-fail\" data-step=\"\(step)\""), "arrow of step \(step) not marked")
        }
        // (The page is in the flow's language: the chip's tooltip words are Turkish here.)
        #expect(page.contains("<span class=\"case-chip chip-fail\" title=\"\(failedCases[0].caseID): "))
        // Its evidence links to the case that showed it.
        let anchor = "case-" + failedCases[0].rule.lowercased() + "-" + failedCases[0].caseID.lowercased()
        #expect(page.contains("<li id=\"\(anchor)\">"), "no anchor \(anchor)")
        #expect(page.contains("<a href=\"#\(anchor)\"><code>\(failedCases[0].rule)/\(failedCases[0].caseID)</code></a>"))
        #expect(page.contains("skip-nonce"))
        // A report that is neither format is refused with a clear message.
        try Data("{\"flows\": [{}]}".utf8).write(to: json)
        #expect(throws: ResultsInput.Error.self) { try ResultsInput.load(path: json.path) }
    }

    /// Evidence sentences are keyed in the JSON report and said in the page's language: the
    /// Vietnamese web flow's token cases read "đã từ chối (HTTP 4xx)…", not the English message,
    /// which the report keeps as it was.
    @Test func checkReportEvidenceIsInThePagesLanguage() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-evidence-vi-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let code = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "apple-sign-in-web", "--concurrency", "8", "--report", "json:\(json.path)"], console: output.console)
        #expect(code == 0, "\(output.text.suffix(2000))")
        let report = try JSONReport.decode(try #require(FileManager.default.contents(atPath: json.path)))
        let rejected = report.results.filter { $0.messageKey == MessageKey.rejectedNothingUsable.rawValue }
        #expect(!rejected.isEmpty)
        #expect(rejected.allSatisfy { $0.message?.hasPrefix("rejected (HTTP 4") == true && $0.message?.hasSuffix("; nothing usable returned") == true })
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-evidence-vi-site-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let config = URL(fileURLWithPath: Fixtures.repositoryFlows).deletingLastPathComponent().appendingPathComponent("site/site.yml").path
        let build = try SiteBuilder(options: SiteBuildOptions(inputs: [Fixtures.repositoryFlows], outputDirectory: out, configPath: config, results: try ResultsInput.load(path: json.path))).build()
        #expect(build.succeeded)
        let page = try String(contentsOfFile: out + "/flows/apple-sign-in-web.html", encoding: .utf8)
        #expect(page.contains("<span class=\"evidence\">đã từ chối (HTTP 4"))
        #expect(page.contains("; không trả về gì dùng được</span>"))
        #expect(!page.contains("nothing usable returned"))
    }

    @Test func everyDefectIsCoveredByThisTest() {
        // skip-nbf needs a not-before rule, which flows/ has none of: covered by the fixture test below.
        let covered = Set(Self.catches.map(\.defect)).union(["skip-nbf", "nbf-string"])
        #expect(Set(Defect.allCases.map(\.rawValue)) == covered)
    }

    @Test func notBeforeDefectIsCaughtWhenASpecHasTheRule() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-nbf-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let clean = await CheckCLI.run(arguments: [Fixtures.path("all-rules"), "--case", "C10", "--report", "json:\(json.path)"], console: output.console)
        #expect(clean == 0, "\(output.text.suffix(2000))")
        let broken = await CheckCLI.run(arguments: [Fixtures.path("all-rules"), "--defect", "skip-nbf", "--report", "json:\(json.path)"], console: output.console)
        #expect(broken == 1)
        let report = try JSONReport.decode(try #require(FileManager.default.contents(atPath: json.path)))
        // No nbf check at all: a quoted nbf passes too.
        #expect(Self.failing(report) == ["not-before/C10", "not-before/C21"])
        let lenient = await CheckCLI.run(arguments: [Fixtures.path("all-rules"), "--defect", "nbf-string", "--report", "json:\(json.path)"], console: output.console)
        #expect(lenient == 1)
        let lenientReport = try JSONReport.decode(try #require(FileManager.default.contents(atPath: json.path)))
        #expect(Self.failing(lenientReport) == ["not-before/C21"])
    }

    @Test func badInputExitsTwo() async throws {
        let output = CapturedOutput()
        #expect(await CheckCLI.run(arguments: [Fixtures.path("broken")], console: output.console) == 2)
        #expect(output.text.contains("error"))
        #expect(await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--backend", "http://127.0.0.1:1", "--defect", "skip-aud"], console: output.console) == 2)
        #expect(await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--case", "no-such-case"], console: output.console) == 2)
        #expect(await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--shard", "3/2"], console: output.console) == 2)
    }

    /// P5 alone gives the verdict of a full run: it warms the backend's JWKS cache with an
    /// honest sign-in first, so a backend that never refetches is caught without other cases.
    @Test func keyRotationCaseAloneCatchesABackendThatNeverRefetches() async throws {
        let (code, report, output) = try await Self.check(["--flow", "apple-sign-in-web", "--case", "P5", "--defect", "no-jwks-refetch"])
        #expect(code == 1, "\(output.suffix(2000))")
        #expect(Self.failing(report) == ["signature/P5"], "\(output.suffix(2000))")
        let (correct, _, correctOutput) = try await Self.check(["--flow", "apple-sign-in-web", "--case", "P5"])
        #expect(correct == 0, "\(correctOutput.suffix(2000))")
    }

    @Test func unreachableBackendExitsThree() async throws {
        // Port 1: nothing listens there (a port freed by a test server could be handed to the
        // mock provider started next, which would answer).
        let output = CapturedOutput()
        // An Apple flow: its provider starts, and its URLs are printed for a live backend (a flow
        // without a provider starts none: ProviderCheckTests).
        let code = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--backend", "http://127.0.0.1:1", "--flow", "apple-sign-in-web"], console: output.console)
        #expect(code == 3)
        #expect(output.text.contains("unreachable"))
        #expect(output.text.contains("/auth/keys"), "provider URLs are printed for a live backend")
    }

    @Test func shardsMergeToTheSameVerdicts() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = CapturedOutput()
        var paths: [String] = []
        for index in 1...3 {
            let path = dir.appendingPathComponent("shard-\(index).json").path
            let code = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "apple-sign-in-native", "--shard", "\(index)/3", "--report", "json:\(path)"], console: output.console)
            #expect(code == 0)
            paths.append(path)
        }
        let merged = dir.appendingPathComponent("all.json").path
        let junit = dir.appendingPathComponent("all.xml").path
        #expect(await CheckCLI.run(arguments: ["--merge"] + paths + ["--report", "json:\(merged)", "--report", "junit:\(junit)"], console: output.console) == 0)
        let report = try JSONReport.decode(try #require(FileManager.default.contents(atPath: merged)))
        let all = Planner(flowFilter: ["apple-sign-in-native"]).plan(flows: try Fixtures.flowsAt(Fixtures.repositoryFlows)).map(\.id)
        #expect(report.results.map(\.id).sorted() == all.sorted())
        try SchemaValidation.validateJUnit(try String(contentsOfFile: junit, encoding: .utf8))
    }
}
}
