import FlowLint
import FlowModel
import Foundation
import TestSupport
import Testing

/// `lint --format github`, `--help` at 80 columns, and mistyped subcommands.
@Suite struct CIOutputTests {
    /// Expected bytes written by hand from GitHub's workflow-command syntax and the escaping of
    /// @actions/core (escapeData: % CR LF; escapeProperty: also : and ,).
    @Test func annotationsEscapeAsGitHubsToolkitDoes() {
        let diagnostics = [
            Diagnostic(.duplicateStep, severity: .error, location: SourceLocation(file: "flows/a,b:c.md", line: 3, column: 5),
                       message: "50% done: step 12, twice", hint: "renumber",
                       related: [RelatedLocation(location: SourceLocation(file: "f.md", line: 2, column: 5), message: "first here")]),
            Diagnostic(.unknownKey, severity: .warning, location: SourceLocation(file: "f.md", line: 1, column: 3), message: "unknown key"),
            Diagnostic(.legacyUnmapped, severity: .note, location: SourceLocation(file: "f.md", line: 9, column: 1), message: "n"),
        ]
        let expected = """
            ::error file=flows/a%2Cb%3Ac.md,line=3,col=5,title=FS202 duplicate step number::50%25 done: step 12, twice%0Ahint: renumber%0Anote: f.md:2:5: first here
            ::warning file=f.md,line=1,col=3,title=FS103 unknown front matter key::unknown key
            ::notice file=f.md,line=9,col=1,title=FS701 legacy import%3A content that could not be mapped::n

            """
        #expect(GitHubAnnotations.render(diagnostics) == expected)
    }

    /// A message cannot end its command or start another: CR, LF and escape characters from a
    /// spec never reach the log raw.
    @Test func aSpecCannotInjectACommand() {
        let hostile = Diagnostic(.unknownKey, severity: .warning, location: SourceLocation(file: "f.md", line: 1, column: 1),
                                 message: "key 'x\r\n::add-mask::y\u{1B}[31m'")
        let out = GitHubAnnotations.render([hostile])
        #expect(out.split(separator: "\n").count == 1)
        #expect(out.components(separatedBy: "::").count - 1 == 4, "\(out)")
        #expect(!out.contains("\u{1B}") && !out.contains("\r"))
    }

    func run(_ arguments: [String], columns: Int = 80) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = String(columns)
        return try runProcess(flowspecBinary.path, arguments, environment: environment, currentDirectory: packageRoot)
    }

    @Test func lintFormatGitHubAnnotatesTheSpecLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-gh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let faulty = validSpec.replacingOccurrences(of: "### 4. App loads the profile", with: "### 3. App loads the profile")
        try faulty.write(to: directory.appendingPathComponent("f.md"), atomically: true, encoding: .utf8)
        let result = try run(["lint", directory.path, "--format", "github"])
        #expect(result.status == 1)
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("::error ") })
        let file = GitHubAnnotations.escapeProperty(directory.appendingPathComponent("f.md").path)
        #expect(line.hasPrefix("::error file=\(file),line=50,col=5,title=FS202 duplicate step number::step 3 is defined twice"), "\(line)")
        #expect(try run(["lint", "flows", "--format", "github"]).output == "0 errors, 0 warnings in 8 files\n")
    }

    /// Every line of a command's overview that is indented (examples, tables) comes out whole
    /// at 80 columns: the same as at 1 000 columns, where ArgumentParser wraps nothing.
    @Test(arguments: ["", "lint", "export", "import", "build", "serve", "check", "mock"])
    func helpKeepsExampleLinesWholeAt80Columns(command: String) throws {
        let arguments = (command.isEmpty ? [] : [command]) + ["--help"]
        func overview(_ columns: Int) throws -> [String] {
            let output = try run(arguments, columns: columns).output
            let head = output.components(separatedBy: "\nUSAGE:")[0]
            return head.components(separatedBy: "\n")
        }
        let wide = try overview(1000).filter { $0.hasPrefix("  ") }
        let narrow = try overview(80)
        #expect(!wide.isEmpty)
        for line in wide {
            #expect(line.count < 80, "too long for 80 columns: \(line)")
            #expect(narrow.contains(line), "broken at 80 columns: \(line)")
        }
        if command == "check" || command == "lint" { #expect(wide.contains { $0.hasPrefix("  flowspec \(command)") }) }
    }

    @Test(arguments: [("chek", "check"), ("lnt", "lint"), ("biuld", "build"), ("serv", "serve"), ("exprt", "export")])
    func mistypedSubcommandSuggestsTheClosest(typed: String, meant: String) throws {
        let result = try run([typed, "flows"])
        #expect(result.status == 64, "\(result.output)")
        #expect(result.output.contains("unknown command '\(typed)'; did you mean '\(meant)'?"), "\(result.output)")
    }

    @Test func unrelatedWordListsTheCommands() throws {
        let result = try run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.output.contains("unknown command 'frobnicate'; commands: lint, export, import, build, serve, check, mock, help"), "\(result.output)")
        // Options and real commands are untouched.
        #expect(try run(["--version"]).status == 0)
        #expect(try run(["help", "lint"]).status == 0)
    }
}
