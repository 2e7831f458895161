import FlowLint
import FlowModel
import Foundation
import Testing

@Suite struct OutputTests {
    let diagnostics = [
        Diagnostic(.duplicateStep, severity: .error, location: SourceLocation(file: "f.md", line: 3, column: 5),
                   message: "step 12 is defined twice", hint: "renumber",
                   related: [RelatedLocation(location: SourceLocation(file: "f.md", line: 2, column: 5), message: "first here")]),
        Diagnostic(.unknownKey, severity: .warning, location: SourceLocation(file: "f.md", line: 1, column: 3), message: "unknown key"),
    ]

    @Test func textIsCompilerStyleWithACaretUnderTheColumn() {
        let lines = ["ab", "### 12. Một", "### 12. Hai"]
        let text = DiagnosticPrinter.text(diagnostics, color: false) { _, line in lines[line - 1] }
        let output = text.split(separator: "\n").map(String.init)
        #expect(output[0] == "f.md:3:5: error: step 12 is defined twice [FS202]")
        #expect(output[1] == "  ### 12. Hai")
        #expect(output[2] == "      ^")
        #expect(output[3] == "  hint: renumber")
        #expect(output[4] == "  note: f.md:2:5: first here")
        #expect(!text.contains("\u{1B}["))
        let colored = DiagnosticPrinter.text(diagnostics, color: true) { _, line in lines[line - 1] }
        #expect(colored.contains("\u{1B}[1;31merror\u{1B}[0m"))
        #expect(DiagnosticPrinter.summary(diagnostics, files: 1) == "1 error, 1 warning in 1 file")
    }

    @Test func jsonCarriesEveryField() throws {
        let data = Data(DiagnosticPrinter.json(diagnostics, files: ["f.md"]).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let entries = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(entries.first?["code"] as? String == "FS202")
        #expect(entries.first?["line"] as? Int == 3)
        #expect(entries.first?["column"] as? Int == 5)
        #expect(entries.first?["hint"] as? String == "renumber")
        #expect((entries.first?["related"] as? [[String: Any]])?.first?["line"] as? Int == 2)
        #expect((object["summary"] as? [String: Int])?["errors"] == 1)
    }

    @Test func sarifIsVersion210WithRulesAndRegions() throws {
        let data = Data(DiagnosticPrinter.sarif(diagnostics, toolVersion: "9.9.9").utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? String == "2.1.0")
        let run = try #require((object["runs"] as? [[String: Any]])?.first)
        #expect(run["columnKind"] as? String == "unicodeCodePoints")
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "flowspec")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["FS103", "FS202"])
        let results = try #require(run["results"] as? [[String: Any]])
        let first = results[0]
        #expect(first["ruleId"] as? String == "FS202")
        #expect(first["level"] as? String == "error")
        #expect(first["ruleIndex"] as? Int == 1)
        let region = (((first["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Int])
        #expect(region == ["startLine": 3, "startColumn": 5])
        #expect((first["relatedLocations"] as? [[String: Any]])?.count == 1)
    }
}

/// The `flowspec` executable itself: exit codes and formats, as a user or CI sees them.
@Suite struct LintCLITests {
    static var binary: URL { flowspecBinary }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        return try runProcess(Self.binary.path, arguments, environment: environment, currentDirectory: packageRoot)
    }

    func temporaryDirectory(_ files: [String: [UInt8]]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    @Test func realFlowsExitZero() throws {
        let result = try run(["lint", "flows", "--strict"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("0 errors, 0 warnings"))
    }

    @Test func errorsExitOneWithFileLineColumn() throws {
        let faulty = validSpec.replacingOccurrences(of: "### 4. App loads the profile", with: "### 3. App loads the profile")
        let directory = try temporaryDirectory(["f.md": Array(faulty.utf8)])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(["lint", directory.path])
        #expect(result.status == 1)
        #expect(result.output.contains("/f.md:50:5: error: step 3 is defined twice [FS202]"), "\(result.output)")
    }

    @Test func warningsFailOnlyUnderStrict() throws {
        let warned = validSpec.replacingOccurrences(of: "lang: en\n", with: "lang: en\nextra: 1\n")
        let directory = try temporaryDirectory(["w.md": Array(warned.utf8)])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try run(["lint", directory.path]).status == 0)
        #expect(try run(["lint", directory.path, "--strict"]).status == 1)
    }

    /// A spec given by a one-character path that names an OpenAPI description: Foundation's
    /// `deletingLastPathComponent` trapped on the path (exit 132) where lint now says the
    /// description is missing.
    @Test func aOneCharacterSpecPathIsLinted() throws {
        let spec = try String(contentsOf: packageRoot.appendingPathComponent("flows/apple-sign-in-web.md"), encoding: .utf8)
        #expect(spec.contains("openapi: ../openapi/"))
        let directory = try temporaryDirectory(["a": Array(spec.utf8)])
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let result = try runProcess(Self.binary.path, ["lint", "a"], environment: environment, currentDirectory: directory)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("a:") && result.output.contains("../openapi/"), "\(result.output)")
    }

    @Test func unusableInputExitsTwo() throws {
        let directory = try temporaryDirectory(["bin.md": [0x00, 0xFF, 0x10], "latin1.md": [0x2D, 0xFC, 0x0A]])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(["lint", directory.path])
        #expect(result.status == 2)
        #expect(result.output.contains("FS001"))
        #expect(result.output.contains("FS002"))
        #expect(try run(["lint", "/nonexistent/path"]).status == 2)
        let empty = try temporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(try run(["lint", empty.path]).status == 2)
    }

    @Test func machineFormatsParse() throws {
        for format in ["json", "sarif"] {
            let result = try run(["lint", "flows", "--format", format])
            #expect(result.status == 0)
            #expect((try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) != nil, "\(format): \(result.output.prefix(200))")
        }
    }

    @Test func importOfSeed000ExitsOneOnTheDuplicateOnly() throws {
        let seed = try #require(Bundle.module.url(forResource: "Fixtures/legacy-apple-web", withExtension: "txt"))
        let result = try run(["import", seed.path, "--id", "apple-web-imported"])
        #expect(result.status == 1)
        #expect(result.output.contains("lint: 1 error"), "\(result.output.suffix(400))")
        #expect(result.output.contains("[FS202]"))
        #expect(result.output.contains("id: apple-web-imported"))
    }

    @Test func exportFormats() throws {
        let mermaid = try run(["export", "flows/apple-sign-in-web.md", "--format", "mermaid"])
        #expect(mermaid.status == 0)
        #expect(mermaid.output.hasPrefix("sequenceDiagram"))
        let dot = try run(["export", "flows", "--format", "dot"])
        #expect(dot.status == 0)
        #expect(dot.output.components(separatedBy: "digraph ").count - 1 >= 6)
        let ambiguous = try run(["export", "flows", "--format", "mermaid"])
        #expect(ambiguous.status == 2)
    }
}
