import FlowCheck
import FlowModel
import Foundation
import Testing

/// Reports: JSON against docs/schemas/check-report.schema.json, JUnit against the common XSD,
/// shard merging equal to an unsharded run.
@Suite struct ReportTests {
    static func sampleResults() -> [ItemResult] {
        let evidence = Evidence(
            request: RequestEvidence(method: "POST", url: "http://127.0.0.1:1/login", headers: [HeaderField(name: "Authorization", value: "Bearer abcdefgh…")], bodyExcerpt: #"{"id_token":"eyJhbGci…"}"#),
            response: ResponseEvidence(status: 200, headers: [], bodyExcerpt: "<html> & \"quotes\" \u{1}", bodyBytes: 30, truncated: false, elapsedMS: 3, failure: nil),
            token: TokenEvidence(header: #"{"alg":"none"}"#, claims: #"{"sub":"1"}"#, segments: 3),
            providerRequests: [ProviderRequestEvidence(method: "POST", path: "/auth/token", endpoint: "token", grantType: "authorization_code", status: 400, error: "invalid_client", clientSecretViolations: ["kid-mismatch"], fields: ["code": "c0de…"])],
            notes: ["a note"])
        func token(_ id: String, _ caseID: String, variant: Int?, _ verdict: Verdict, rule: String = "signature", position: Int = 0) -> ItemResult {
            ItemResult(
                id: id, flowID: id.split(separator: "/").first.map(String.init)!, kind: .tokenCase, title: "\(caseID) title", verdict: verdict,
                message: verdict == .pass ? nil : "why <it> failed",
                tokenCase: TokenCaseInfo(rule: rule, rulePosition: position, caseID: caseID, variant: variant, variantDescription: "variant", expectation: "reject", step: 2, conformanceID: nil),
                steps: [StepResult(step: 2, title: "Posts", kind: "request", verdict: verdict, message: "m", evidence: verdict == .fail ? evidence : nil)],
                evidence: verdict == .fail ? evidence : nil, durationMS: 12)
        }
        return [
            ItemResult(id: "b-flow/path-1", flowID: "b-flow", kind: .scenario, title: "main path → success", verdict: .pass,
                       scenario: ScenarioInfo(index: 1, path: [1, 2], choices: [], outcome: "success"),
                       steps: [StepResult(step: 1, title: "UI", kind: "ui", verdict: .notExecutable, message: "UI only"),
                               StepResult(step: 2, title: "Post", kind: "request", verdict: .pass)], durationMS: 5),
            ItemResult(id: "b-flow/path-2", flowID: "b-flow", kind: .scenario, title: "deny → cancelled", verdict: .notExecutable, message: "nothing",
                       scenario: ScenarioInfo(index: 2, path: [1], choices: ["1: deny"], outcome: "cancelled"), steps: [], durationMS: 1),
            ItemResult(id: "b-flow/path-10", flowID: "b-flow", kind: .scenario, title: "x", verdict: .error, message: "boom",
                       scenario: ScenarioInfo(index: 10, path: [1], choices: [], outcome: "failure"), steps: [], durationMS: 1),
            token("a-flow/signature/S1[0]", "S1", variant: 0, .fail),
            token("a-flow/signature/S1[1]", "S1", variant: 1, .pass),
            token("a-flow/signature/P1", "P1", variant: nil, .pass),
            token("a-flow/issued-at/C8", "C8", variant: nil, .info, rule: "issued-at", position: 1),
        ]
    }

    static func report(_ results: [ItemResult], shard: Shard? = nil) -> CheckReport {
        CheckReport(
            tool: .init(version: "0.1.0"), startedAt: "2026-01-02T03:04:05Z", durationMS: 100,
            backend: .init(url: "http://127.0.0.1:1", embedded: true, defects: []), shard: shard,
            flows: [.init(id: "b-flow", title: "B", file: "flows/b.md"), .init(id: "a-flow", title: "A", file: "flows/a.md")],
            results: results)
    }

    @Test func orderIsDeterministicAndIndependentOfInput() {
        let results = Self.sampleResults()
        let ids = Self.report(results).results.map(\.id)
        #expect(ids == Self.report(results.reversed()).results.map(\.id))
        #expect(ids == [
            "a-flow/signature/P1", "a-flow/signature/S1[0]", "a-flow/signature/S1[1]", "a-flow/issued-at/C8",
            "b-flow/path-1", "b-flow/path-2", "b-flow/path-10",
        ])
        let report = Self.report(results)
        #expect(report.summary.fail == 1 && report.summary.error == 1 && report.summary.info == 1 && report.summary.notExecutable == 1)
        #expect(report.exitCode == 1)
        #expect(Self.report(results.filter { !$0.verdict.failsRun }).exitCode == 0)
    }

    @Test func jsonRoundTripsAndMatchesTheSchema() throws {
        let report = Self.report(Self.sampleResults(), shard: Shard(index: 1, count: 2))
        let data = try JSONReport.encode(report)
        #expect(try JSONReport.decode(data) == report)
        try SchemaValidation.validateJSON(data)
    }

    @Test func schemaValidationRejectsABrokenReport() throws {
        // The validator must be able to fail: an unknown verdict is refused.
        var text = String(decoding: try JSONReport.encode(Self.report(Self.sampleResults())), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"not-executable\"", with: "\"maybe\"")
        #expect(throws: (any Error).self) { try SchemaValidation.validateJSON(Data(text.utf8)) }
    }

    @Test func junitValidatesAgainstTheCommonSchema() throws {
        let xml = JUnitReport.render(Self.report(Self.sampleResults()))
        #expect(xml.contains("<failure message=\"why &lt;it&gt; failed\""))
        #expect(xml.contains("<skipped"))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == Self.sampleResults().count)
        #expect(!xml.contains("\u{1}"))
        try SchemaValidation.validateJUnit(xml)
        #expect(throws: (any Error).self) { try SchemaValidation.validateJUnit(xml.replacingOccurrences(of: "<testsuite name", with: "<testsuite nom")) }
    }

    /// A failed baseline (`flow/rule/P1`) turns its rule's passing reject cases inconclusive,
    /// and only those: other rules, failures and other flows keep their verdicts. Merging shards
    /// applies the gate across them (the baseline failed in one shard, the case passed in another).
    @Test func baselineGateMarksTheRulesRejectCasesInconclusive() throws {
        func item(_ id: String, _ caseID: String, _ verdict: Verdict, expectation: String = "reject") -> ItemResult {
            let parts = id.split(separator: "/").map(String.init)
            return ItemResult(
                id: id, flowID: parts[0], kind: .tokenCase, title: caseID, verdict: verdict, message: verdict == .pass ? "rejected (HTTP 401)" : "a valid token was not accepted: HTTP 401",
                tokenCase: TokenCaseInfo(rule: parts[1], rulePosition: 0, caseID: caseID, variant: nil, variantDescription: nil, expectation: expectation, step: 2, conformanceID: nil),
                cause: verdict == .fail ? "the provider refused the backend's client authentication" : nil)
        }
        let results = [
            item("a/nonce/P1", "P1", .fail, expectation: "accept"),
            item("a/nonce/C12", "C12", .pass),
            item("a/nonce/C13", "C13", .fail),
            item("a/signature/P1", "P1", .pass, expectation: "accept"),
            item("a/signature/S1", "S1", .pass),
            item("b/nonce/C12", "C12", .pass),
        ]
        let gated = BaselineGate.apply(results)
        let verdicts = Dictionary(uniqueKeysWithValues: gated.map { ($0.id, $0.verdict) })
        #expect(verdicts == ["a/nonce/P1": .fail, "a/nonce/C12": .inconclusive, "a/nonce/C13": .fail, "a/signature/P1": .pass, "a/signature/S1": .pass, "b/nonce/C12": .pass])
        let c12 = try #require(gated.first { $0.id == "a/nonce/C12" })
        #expect(c12.cause == "the provider refused the backend's client authentication")
        #expect(c12.message?.contains("a/nonce/P1") == true)
        #expect(Self.report(gated).exitCode == 1)
        #expect(Self.report(gated).summary.inconclusive == 1)

        let merged = try JSONReport.merge([Self.report(Array(results[0...0]), shard: Shard(index: 1, count: 2)), Self.report(Array(results[1...]), shard: Shard(index: 2, count: 2))])
        #expect(merged.results.first { $0.id == "a/nonce/C12" }?.verdict == .inconclusive)
        try SchemaValidation.validateJSON(try JSONReport.encode(merged))
        try SchemaValidation.validateJUnit(JUnitReport.render(merged))
    }

    @Test func shardsMergeIntoTheFullReport() throws {
        let results = Self.sampleResults()
        let full = Self.report(results)
        let halves = [Self.report(Array(results[0..<3]), shard: Shard(index: 1, count: 2)), Self.report(Array(results[3...]), shard: Shard(index: 2, count: 2))]
        let merged = try JSONReport.merge(halves.reversed())
        #expect(merged.results == full.results)
        #expect(merged.summary == full.summary)
        #expect(merged.shard == nil)
        #expect(throws: ReportError.self) { try JSONReport.merge([]) }
    }
}

enum SchemaValidation {
    struct Invalid: Error, CustomStringConvertible { var description: String }

    static var schemaPath: String { Fixtures.repositoryRoot.appendingPathComponent("docs/schemas/check-report.schema.json").path }

    /// Validates with Python's jsonschema (Draft 2020-12), installed by the test script.
    static func validateJSON(_ data: Data) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-report-\(UUID().uuidString).json")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]: print(list(e.path), e.message)
        sys.exit(1 if errors else 0)
        """
        let python = try #require(which("python3"), "python3 with jsonschema is needed (scripts/test-check.sh installs it)")
        let result = try runProcess(python, ["-c", script, schemaPath, file.path])
        if result.status != 0 { throw Invalid(description: result.output) }
    }

    static func validateJUnit(_ xml: String) throws {
        let xmllint = try #require(which("xmllint"), "xmllint (Debian libxml2-utils) is needed: scripts/test-check.sh installs it")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-junit-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runProcess(xmllint, ["--noout", "--schema", Fixtures.path("junit-10.xsd"), file.path])
        if result.status != 0 { throw Invalid(description: result.output) }
    }
}
