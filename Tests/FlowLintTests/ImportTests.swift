import FlowImport
import FlowLint
import FlowModel
import FlowParser
import Foundation
import Testing
@_exported import TestSupport

/// The package root, found from this file's path (tests run from anywhere).

@Suite struct ImportTests {
    var legacy: [UInt8] {
        get throws {
            let url = try #require(Bundle.module.url(forResource: "Fixtures/legacy-apple-web", withExtension: "txt"))
            return [UInt8](try Data(contentsOf: url))
        }
    }

    @Test func seed000ImportsWithOnlyTheDuplicateStepAsError() throws {
        let result = LegacyImporter().importDocument(bytes: try legacy, file: "legacy.txt")
        let flow = try #require(result.flow)
        #expect(flow.lang == "vi")
        #expect(flow.title == "Tích hợp chức năng đăng nhập bằng Apple ID trên TVL App")
        #expect(flow.tags == ["authentication/apple/login", "mobile"])
        #expect(flow.environments == ["sandbox", "production"])
        #expect(flow.provider == "apple")
        #expect(flow.actors.map(\.role) == [.person, .client, .provider, .provider, .backend])
        #expect(flow.steps.map(\.number) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12])
        #expect(flow.step(3)?.alternates.map(\.target) == [.step(6), .step(4)])
        #expect(flow.step(4)?.alternates.map(\.target) == [.step(5), .step(4)])
        #expect(flow.step(5)?.alternates.map(\.target) == [.step(6), .end(.cancelled)])
        #expect(flow.steps.last?.alternates.map(\.target) == [.end(.success), .end(.failure)])
        #expect(flow.step(6)?.exchange?.request.target == "/api/v1/auth/apple/login")
        #expect(flow.step(7).map { "\($0.from) → \($0.to)" } == "tvl-be → apple-be")
        // Everything not mapped is reported with its line in the legacy file.
        let unmapped = result.report.filter { $0.severity == .warning }
        #expect(unmapped.contains { $0.location.line == 9 && $0.message.contains("created_by") })
        #expect(unmapped.contains { $0.location.line == 69 && $0.message.contains("step 12") })

        // The written spec, read back, keeps the structure and lints with one error: the duplicate.
        let text = SpecWriter.write(flow)
        let run = Linter().lint(sources: [(file: "imported.md", text: text)])
        let errors = run.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == ["FS202"], "\(errors.map(\.message))")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let secondTwelve = lines.indices.filter { lines[$0].hasPrefix("### 12.") }.last.map { $0 + 1 }
        #expect(errors.first?.location.line == secondTwelve)
        #expect(errors.first?.location.column == 5)
        let reread = try #require(run.flows.first)
        #expect(reread.steps.map(\.number) == flow.steps.map(\.number))
        #expect(reread.steps.map(\.alternates).map { $0.map(\.target) } == flow.steps.map(\.alternates).map { $0.map(\.target) })
        #expect(reread.steps.map(\.from) == flow.steps.map(\.from))
        #expect(reread.actors.map(\.id) == flow.actors.map(\.id))
        #expect(reread.stepsHeading == "Flow")
    }

    @Test func specWriterRoundTripsTheRealFlows() throws {
        let run = Linter().lint(paths: [packageRoot.appendingPathComponent("flows").path])
        #expect(!run.flows.isEmpty)
        for flow in run.flows {
            let text = SpecWriter.write(flow)
            let reread = try #require(SpecParser().parse(bytes: Array(text.utf8), file: flow.file).flow)
            #expect(reread.steps.map(\.number) == flow.steps.map(\.number), "\(flow.id)")
            #expect(reread.steps.map(\.alternates).map { $0.map(\.target) } == flow.steps.map(\.alternates).map { $0.map(\.target) }, "\(flow.id)")
            #expect(reread.steps.map(\.exchange?.request.target) == flow.steps.map(\.exchange?.request.target), "\(flow.id)")
            #expect(reread.steps.map(\.exchange?.expectation?.status) .map { $0?.codes } == flow.steps.map(\.exchange?.expectation?.status).map { $0?.codes }, "\(flow.id)")
            #expect(reread.tokenRules.map(\.id) == flow.tokenRules.map(\.id), "\(flow.id)")
            #expect(reread.tokenRules.map(\.step) == flow.tokenRules.map(\.step), "\(flow.id)")
        }
    }

    /// A NUL byte anywhere makes a binary file (FS001), not only at offset 0: the importer used to
    /// compare with `.binary(offset: 0)` and call every other NUL "not UTF-8" (FS002).
    @Test func aNULByteLaterInTheFileIsBinaryNotBadUTF8() {
        let bytes = Array("```yaml\n title: x\n```\n\n- **Step 1:** go\n".utf8) + [0] + Array("rest\n".utf8)
        let result = LegacyImporter().importDocument(bytes: bytes, file: "x.md")
        #expect(result.flow == nil)
        #expect(result.report.map(\.code) == ["FS001"])
        #expect(result.report.first?.message.contains("offset \(bytes.firstIndex(of: 0)!)") == true)
    }

    /// The header is read by Yams: YAML it cannot read is reported at its line, not guessed at.
    @Test func aHeaderThatIsNotYAMLIsReportedAtItsLine() throws {
        let text = "```yaml\ntitle: Sign in\ntags: [a, b\n```\n\n- **Step 1:** The user taps\n- **Step 2:** The app sends\n"
        let result = LegacyImporter().importDocument(bytes: Array(text.utf8), file: "x.md")
        let warning = try #require(result.report.first { $0.message.contains("header is not YAML") })
        #expect(warning.severity == .warning)
        #expect((2...4).contains(warning.location.line))
        #expect(result.flow?.steps.map(\.number) == [1, 2])
    }

    @Test func nonDocumentsAreRefused() {
        #expect(LegacyImporter().importDocument(bytes: [0, 1, 2], file: "x").flow == nil)
        let noSteps = LegacyImporter().importDocument(bytes: Array("# Title\n\nJust prose.\n".utf8), file: "x.md")
        #expect(noSteps.flow == nil)
        #expect(noSteps.report.first?.message.contains("no steps found") == true)
    }
}

@Suite struct RealFlowsTests {
    @Test func flowsDirectoryLintsClean() {
        let run = Linter().lint(paths: [packageRoot.appendingPathComponent("flows").path])
        #expect(run.files.count >= 6)
        #expect(run.flows.count == run.files.count)
        #expect(run.diagnostics.isEmpty, "\(run.diagnostics.map { "\($0.location): \($0.code) \($0.message)" })")
        // The English translation is checked against its original.
        #expect(run.flows.contains { $0.translationOf == "apple-sign-in-web" })
    }

    @Test func everyDiagnosticCodeIsDocumented() throws {
        let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/flow-format.md"), encoding: .utf8)
        for code in DiagnosticCode.all {
            // Its documentation anchor exists, on the row of its table.
            #expect(doc.contains("| <a id=\"\(code.id.lowercased())\"></a>\(code.id) |"), "\(code) is not documented in docs/flow-format.md")
            #expect(code.documentation == "docs/flow-format.md#\(code.id.lowercased())")
            #expect(!code.title.isEmpty)
        }
        #expect(Set(DiagnosticCode.all.map(\.id)).count == DiagnosticCode.all.count, "ids are unique")
        #expect(DiagnosticCode.all.map(\.id) == DiagnosticCode.all.map(\.id).sorted(), "listed in id order")
        for code in Linter.ruleCodes {
            #expect(DiagnosticCode.named(code.id) == code, "\(code) is not in DiagnosticCode.all")
        }
    }
}
