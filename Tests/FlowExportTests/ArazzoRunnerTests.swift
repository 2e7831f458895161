import Foundation
import Testing
import TestSupport

/// The exported Apple web flow and password-login flow, run by a third-party Arazzo runner
/// (arazzo-runner from PyPI, installed by `scripts/setup.sh --test`) against the embedded mock
/// backend (`flowspec mock --backend` on ephemeral ports). Fixtures/arazzo/run_workflows.py
/// says what it does around the unchanged workflows: it plays the person at the provider (the
/// steps Arazzo cannot express) to get the `provider` inputs, and adds the one runtime
/// expression arazzo-runner 0.9.6 lacks, `$response.header.NAME`.
@Suite struct ArazzoRunnerTests {
    @Test func arazzoRunnerPassesTheExportedWorkflowsAgainstTheMockBackend() throws {
        let out = try ArazzoExportTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let exported = try ArazzoExportTests.flowspec(["export"] + ArazzoExportTests.specs + ["--format", "arazzo", "--out", out.path])
        try #require(exported.status == 0, "\(exported.output)")
        let document = out.appendingPathComponent("flows.arazzo.yaml")
        #expect(try ArazzoExportTests.validate([document])["flows.arazzo.yaml"] == [])

        let python = try #require(which("python3"))
        let driver = ArazzoExportTests.fixtures.appendingPathComponent("run_workflows.py")
        let run = try runProcess(python, [driver.path, flowspecBinary.path, document.path] + ArazzoExportTests.specs,
                                 currentDirectory: packageRoot)
        try #require(run.status == 0, "\(run.output.suffix(2000))")
        // The runner logs to the same stream; the report is the JSON object at the end.
        let start = try #require(run.output.range(of: "{\n  \"header_lookups\"", options: .backwards))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output[start.lowerBound...].utf8)) as? [String: Any])
        let workflows = try #require(report["workflows"] as? [String: [String: Any]])

        // Exactly the API calls of each flow's happy path ran, each passing its criteria:
        // Apple steps 6 and 12 (1–5 and 7–11, 13 are UI, provider or backend-internal steps),
        // password-login steps 2 and 4. The branch steps (step-N-alt-I) are not on that path.
        let apple = try #require(workflows["apple-sign-in-web"])
        #expect(apple["steps"] as? [[String]] == [["step-6", "passed"], ["step-12", "passed"]])
        #expect(apple["status"] as? String == "workflow_complete")
        #expect(apple["provider_inputs"] as? [String] == ["code", "email", "id_token", "nonce"])
        #expect(apple["outputs"] as? [String] == ["session"])
        let password = try #require(workflows["password-login"])
        #expect(password["steps"] as? [[String]] == [["step-2", "passed"], ["step-4", "passed"]])
        #expect(password["status"] as? String == "workflow_complete")
        #expect(password["provider_inputs"] as? [String] == [])
        #expect(password["outputs"] as? [String] == ["token"])
        // Step 6's header criterion was evaluated on a header the backend sent.
        let lookups = try #require(report["header_lookups"] as? [[String: Any]])
        #expect(lookups.count == 1)
        #expect(lookups.first?["expression"] as? String == "$response.header.Content-Type")
        #expect((lookups.first?["found"] as? NSNumber)?.boolValue == true)
    }

    /// The criteria can fail: with a wrong password step 2 gets the backend's 401 and fails, and
    /// the workflow ends there with an error. (The export's onFailure action for that answer,
    /// criteria `$statusCode == 401`, goes to step-2-alt-2; arazzo-runner 0.9.6 evaluates
    /// action criteria without the step's response, so it never takes such a branch:
    /// docs/arazzo.md.)
    @Test func aWrongPasswordFailsStepTwoAndEndsTheWorkflow() throws {
        let out = try ArazzoExportTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let exported = try ArazzoExportTests.flowspec(["export", "flows/password-login.md", "--format", "arazzo", "--out", out.path])
        try #require(exported.status == 0, "\(exported.output)")
        let python = try #require(which("python3"))
        let driver = ArazzoExportTests.fixtures.appendingPathComponent("run_workflows.py")
        let run = try runProcess(python, [driver.path, flowspecBinary.path, out.appendingPathComponent("password-login.arazzo.yaml").path,
                                          "--inputs", #"{"password-login": {"password": "not-the-password"}}"#, "flows/password-login.md"],
                                 currentDirectory: packageRoot)
        try #require(run.status == 0, "\(run.output.suffix(2000))")
        let start = try #require(run.output.range(of: "{\n  \"header_lookups\"", options: .backwards))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output[start.lowerBound...].utf8)) as? [String: Any])
        let password = try #require((report["workflows"] as? [String: [String: Any]])?["password-login"])
        #expect(password["steps"] as? [[String]] == [["step-2", "failed"]])
        #expect(password["status"] as? String == "error")
    }
}
