import FlowModel
import Foundation
import Testing
import TestSupport

/// `flowspec export --format arazzo`, judged by oracles outside flowspec: the published Arazzo
/// 1.0 JSON Schema (with Python's jsonschema), openapi-spec-validator, and workflow shapes
/// derived by hand from flows/apple-sign-in-web.md and flows/password-login.md.
@Suite struct ArazzoExportTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/FlowExportTests/Fixtures/arazzo")
    static let schema = packageRoot.appendingPathComponent("docs/schemas/arazzo-1.0.schema.json")
    static let specs = ["flows/apple-sign-in-web.md", "flows/password-login.md"]

    static func flowspec(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProcess(flowspecBinary.path, arguments, currentDirectory: packageRoot)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("arazzo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Each file's schema and OpenAPI errors, from validate.py.
    static func validate(_ files: [URL]) throws -> [String: [String]] {
        let python = try #require(which("python3"))
        let result = try runProcess(python, [fixtures.appendingPathComponent("validate.py").path, schema.path] + files.map(\.path))
        try #require(result.status == 0, "validate.py: \(result.output)")
        var errors: [String: [String]] = [:]
        for line in result.output.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            errors[try #require(object["file"] as? String)] = object["errors"] as? [String] ?? []
        }
        return errors
    }

    @Test func theCommittedSchemaIsThePublishedIteration() throws {
        // SHA-256 and size of https://spec.openapis.org/arazzo/1.0/schema/2025-10-15 as published.
        let sha = try #require(which("sha256sum"))
        let result = try runProcess(sha, [Self.schema.path])
        #expect(result.output.hasPrefix("b8715bd824fffcb2accf5077977d37c9e7a15be60d785e7a3a51cf600fd46ad4"))
        #expect(try Data(contentsOf: Self.schema).count == 23_972)
    }

    @Test func theAppleAndPasswordFlowsValidateAgainstTheArazzoSchema() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        var files: [URL] = []
        for format in ["arazzo", "arazzo-json"] {
            for spec in Self.specs + [Self.specs.joined(separator: " ")] {
                let folder = out.appendingPathComponent("\(format)-\(files.count)")
                let result = try Self.flowspec(["export"] + spec.split(separator: " ").map(String.init) + ["--format", format, "--out", folder.path])
                #expect(result.status == 0, "\(result.output)")
                let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".arazzo.") }
                files += written.map { folder.appendingPathComponent($0) }
            }
        }
        #expect(files.count == 6)
        let errors = try Self.validate(files)
        #expect(errors.count == 6)
        for (file, problems) in errors { #expect(problems.isEmpty, "\(file): \(problems)") }
    }

    /// The validator is not a rubber stamp: a document the schema forbids is rejected.
    @Test func theSchemaRejectsWhatArazzoForbids() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(try Self.flowspec(["export", "flows/password-login.md", "--format", "arazzo-json", "--out", out.path]).status == 0)
        let file = out.appendingPathComponent("password-login.arazzo.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var info = try #require(document["info"] as? [String: Any])
        info["version"] = nil
        document["info"] = info
        document["arazzo"] = "2.0.0"
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        let problems = try #require(try Self.validate([file])["password-login.arazzo.json"])
        #expect(problems.contains { $0.contains("'version' is a required property") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("arazzo:") }, "\(problems)")
    }

    @Test func exportIsTheSameBytesInTwoProcesses() throws {
        let first = try Self.flowspec(["export"] + Self.specs + ["--format", "arazzo"])
        let second = try Self.flowspec(["export"] + Self.specs + ["--format", "arazzo"])
        #expect(first.status == 0)
        #expect(first.output.contains("workflowId: apple-sign-in-web"))
        #expect(first.output == second.output)
    }

    /// The Apple web flow's workflow, as read off flows/apple-sign-in-web.md by hand: steps 6 and
    /// 12 send requests, step 12's failing branch has its own request; steps 7–11 lead from 6
    /// to 12; step 13 (UI) ends the flow; the user and provider steps are described, not lost.
    @Test func theAppleWorkflowHasTheFlowsShape() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(try Self.flowspec(["export", "flows/apple-sign-in-web.md", "--format", "arazzo-json", "--out", out.path]).status == 0)
        let data = try Data(contentsOf: out.appendingPathComponent("apple-sign-in-web.arazzo.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let workflow = try #require((document["workflows"] as? [[String: Any]])?.first)
        let steps = try #require(workflow["steps"] as? [[String: Any]])
        #expect(steps.map { $0["stepId"] as? String } == ["step-6", "step-12", "step-12-alt-2"])
        let six = steps[0], twelve = steps[1]
        #expect((six["onSuccess"] as? [[String: Any]])?.first?["stepId"] as? String == "step-12")
        #expect((six["operationPath"] as? String)?.hasSuffix("#/paths/~1api~1v1~1auth~1apple~1login/post") == true)
        #expect((six["outputs"] as? [String: String]) == ["session": "$response.body#/session_token"])
        let criteria = try #require(six["successCriteria"] as? [[String: Any]])
        #expect(criteria.first?["condition"] as? String == "$statusCode == 200")
        #expect(criteria.contains { $0["context"] as? String == "$response.header.Content-Type" && $0["type"] as? String == "regex" })
        #expect((twelve["onSuccess"] as? [[String: Any]])?.first?["type"] as? String == "end")
        let failure = try #require((twelve["onFailure"] as? [[String: Any]])?.first)
        #expect(failure["stepId"] as? String == "step-12-alt-2")
        #expect((failure["criteria"] as? [[String: Any]])?.first?["condition"] as? String == "$statusCode == 422")
        let header = (twelve["parameters"] as? [[String: Any]])?.first
        #expect(header?["value"] as? String == "Bearer {$steps.step-6.outputs.session}")
        let description = try #require(workflow["description"] as? String)
        for number in [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13] { #expect(description.contains("\n- \(number). "), "step \(number)") }
        for number in [6, 12] { #expect(!description.contains("\n- \(number). ")) }
        let inputs = try #require(workflow["inputs"] as? [String: Any])
        let provider = try #require((inputs["properties"] as? [String: Any])?["provider"] as? [String: Any])
        #expect(provider["required"] as? [String] == ["code", "email", "id_token", "nonce"])
        #expect(((inputs["properties"] as? [String: Any])?["client_id"] as? [String: Any])?["default"] as? String == "com.tvl.app.web")
    }
}
