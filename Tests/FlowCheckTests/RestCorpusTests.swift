@testable import FlowCLI
import FlowCheck
import FlowMocks
import FlowModel
import Foundation
import Synchronization
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

/// `flowspec mock --backend SPEC` serves one spec's backend alone for front-end work, with a
/// log line per request naming the step that answered and the client, text escaped.
@Suite struct MockBackendLogTests {
    final class Lines: Sendable {
        private let text = Mutex("")
        func append(_ more: String) { text.withLock { $0 += more } }
        var value: String { text.withLock { $0 } }
    }

    @Test func logNamesTheAnsweringStepAndTheClient() async throws {
        let spec = CheckServers.RestCorpusTests.corpus.appendingPathComponent("shopping-cart.md").path
        let command = try MockCommand.parse(["--backend", spec])
        let lines = Lines()
        let code = await MockCLI.execute(command, write: { lines.append($0) }, until: {
            // The backend's URL is printed first; then play a client that checks out twice.
            var base: String?
            for _ in 0..<100 where base == nil {
                base = lines.value.split(separator: "\n").first { $0.hasPrefix("mock backend") }.flatMap { $0.split(separator: " ").last.map(String.init) }
                if base == nil { try? await Task.sleep(for: .milliseconds(20)) }
            }
            guard let base else { return }
            let http = AHCTransport()
            let json = [HeaderField(name: "Content-Type", value: "application/json")]
            // Generous timeouts: under a loaded 2-core full suite a 5 s one expired (cart "none").
            let created = await http.send(OutgoingRequest(method: "POST", url: base + "/api/carts", headers: json, body: Array(#"{"currency": "EUR"}"#.utf8)), timeout: 30)
            let cart = (try? JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String ?? "none"
            _ = await http.send(OutgoingRequest(method: "POST", url: base + "/api/carts/\(cart)/items", headers: json, body: Array(#"{"sku": "BOOK-42", "quantity": 2}"#.utf8)), timeout: 30)
            for _ in 0..<2 {
                _ = await http.send(OutgoingRequest(method: "POST", url: base + "/api/carts/\(cart)/checkout", headers: json, body: Array(#"{"payment_token": "tok_visa"}"#.utf8)), timeout: 30)
            }
            _ = await http.send(OutgoingRequest(method: "GET", url: base + "/nowhere%1B%5B31m"), timeout: 30)
            await http.shutdown()
            for _ in 0..<600 where !lines.value.contains("backend #5") { try? await Task.sleep(for: .milliseconds(50)) }
        })
        #expect(code == 0)
        let log = lines.value
        #expect(!log.contains("mock provider"), "a spec without a provider starts none")
        #expect(log.contains(#"→ 201 · shopping-cart step 1 "App creates a cart" · client 1"#), "\(log)")
        #expect(log.contains(#"→ 200 · shopping-cart step 3 "App checks out" · client 1"#), "\(log)")
        #expect(log.contains(#"→ 409 · shopping-cart step 4 "App sends the check-out a second time" · client 1"#), "\(log)")
        #expect(log.contains("backend #5 GET /nowhere"), "\(log)")
        #expect(!log.contains("\u{1B}"), "no raw escape reaches the terminal")
    }
}
