@testable import FlowCLI
import FlowCheck
import Foundation
import Testing

/// Nine REST specs that are not about sign-in (Fixtures/rest-corpus: CRUD with conflicts,
/// pagination, idempotency keys, 429 with Retry-After, lock-out, logout, refresh-token
/// rotation, a webhook delivery log, a shopping cart), each with an independent Python backend
/// written from the spec's words. The embedded mock backend, which follows each client through
/// the spec's state machine, and the independent backend get the same verdicts: all pass. Each
/// backend's `--broken` variant breaks one behaviour its docstring names, and the check names
/// that step.
extension CheckServers {
@Suite struct RestCorpusTests {
    static let corpus = Fixtures.directory.appendingPathComponent("rest-corpus")

    /// Flow id → the failing items and the step each must name when the backend is `--broken`
    /// (from the backends' docstrings, not from a run).
    static let broken: [String: (items: Set<String>, step: Int)] = [
        "crud-conflicts": (["path-1"], 3),
        "pagination-cursor": (["path-1"], 3),
        "idempotency-keys": (["path-1"], 3),
        "rate-limit-retry-after": (["path-2"], 3),
        "password-lockout": (["path-2"], 5),
        "logout-session": (["path-1"], 5),
        "refresh-token-rotation": (["path-1"], 6),
        "webhook-delivery": (["path-1"], 5),
        "shopping-cart": (["path-1", "path-2"], 4),
    ]

    static func check(_ flow: String, backend: String?) async throws -> (code: Int32, report: CheckReport, output: String) {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-corpus-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let code = await CheckCLI.run(arguments: [corpus.path, "--flow", flow] + (backend.map { ["--backend", $0] } ?? []) + ["--report", "json:\(json.path)"], console: output.console)
        let data = try #require(FileManager.default.contents(atPath: json.path), "no report: \(output.text)")
        return (code, try JSONReport.decode(data), output.text)
    }

    static func verdicts(_ report: CheckReport) -> [String: Verdict] {
        Dictionary(uniqueKeysWithValues: report.results.map { ($0.id, $0.verdict) })
    }

    @Test func corpusHasNineSpecsNotAboutSignIn() throws {
        let specs = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".md") }
        #expect(Set(specs.map { String($0.dropLast(3)) }) == Set(Self.broken.keys))
        for spec in specs {
            let text = try String(contentsOf: Self.corpus.appendingPathComponent(spec), encoding: .utf8)
            #expect(!text.contains("provider:") && !text.contains("{{provider."), "\(spec) must not involve an identity provider")
        }
    }

    @Test(arguments: broken.keys.sorted())
    func embeddedMockAndIndependentBackendAgree(flow: String) async throws {
        let mock = try await Self.check(flow, backend: nil)
        #expect(mock.code == 0, "embedded mock:\n\(mock.output.suffix(2000))")
        #expect(mock.report.results.contains { $0.verdict == .pass })
        #expect(mock.report.results.allSatisfy { $0.verdict == .pass || $0.verdict == .notExecutable }, "\(mock.output.suffix(2000))")

        let script = Self.corpus.appendingPathComponent("backends/\(flow).py").path
        let backend = try PythonBackend.start(script: script, arguments: ["--port", "0"])
        let live = try await Self.check(flow, backend: backend.url)
        backend.stop()
        #expect(live.code == 0, "independent backend:\n\(live.output.suffix(2000))")
        #expect(Self.verdicts(live.report) == Self.verdicts(mock.report), "the same verdicts item by item")

        let brokenBackend = try PythonBackend.start(script: script, arguments: ["--port", "0", "--broken"])
        defer { brokenBackend.stop() }
        let caught = try await Self.check(flow, backend: brokenBackend.url)
        let expected = try #require(Self.broken[flow])
        #expect(caught.code == 1, "--broken not caught:\n\(caught.output.suffix(2000))")
        let failing = caught.report.results.filter { $0.verdict.failsRun }
        #expect(Set(failing.map { String($0.id.dropFirst(flow.count + 1)) }) == expected.items, "\(caught.output.suffix(2000))")
        for item in failing {
            #expect(item.message?.hasPrefix("step \(expected.step):") == true, "\(item.id): \(item.message ?? "")")
        }
    }
}
}
