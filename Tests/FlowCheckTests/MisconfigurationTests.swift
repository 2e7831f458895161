@testable import FlowCLI
import FlowCheck
import Foundation
import Testing

/// A misconfigured run proves nothing, and must say so: the independent Flask + PyJWT backend
/// (Fixtures/interop) started with a wrong client secret, a wrong redirect_uri or a client_id
/// the registration does not know. The provider refuses every code exchange; the run exits
/// non-zero, names the root cause in one line, and counts no reject case as passed.
extension CheckServers {
@Suite struct MisconfigurationTests {
    static let clientID = InteropTests.clientID
    static let redirectURI = InteropTests.redirectURI

    struct Run {
        var code: Int32
        var report: CheckReport
        var output: String
    }

    /// Runs the google-sign-in-web check against the PyJWT backend configured with `backend…`
    /// overrides (a nil secret: the registered one); the registration is the flow's own.
    static func run(backendSecret: String? = nil, backendClientID: String = clientID, backendRedirect: String = redirectURI) async throws -> Run {
        let probe = try HostileServer(.raw(HostileServer.response(200)))
        let providerPort = probe.port
        probe.stop()
        let registeredVariable = "FLOWSPEC_MISCONFIG_REGISTERED_\(UUID().uuidString.prefix(8))"
        let backendVariable = "FLOWSPEC_MISCONFIG_BACKEND_\(UUID().uuidString.prefix(8))"
        let registered = "registered-" + UUID().uuidString
        setenv(registeredVariable, registered, 1)
        setenv(backendVariable, backendSecret ?? registered, 1)
        let backend = try PythonBackend.start(
            script: InteropTests.interop.appendingPathComponent("google_pyjwt_backend.py").path,
            arguments: [
                "--provider-url", "http://127.0.0.1:\(providerPort)", "--client-id", backendClientID,
                "--client-secret-env", backendVariable, "--redirect-uri", backendRedirect, "--port", "0",
            ])
        defer { backend.stop() }
        let registration = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-misconfig-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: registration) }
        let json = #"{"provider": "google", "client_id": "\#(clientID)", "client_secret_env": "\#(registeredVariable)", "redirect_uri": "\#(redirectURI)"}"#
        try Data(json.utf8).write(to: registration)
        let (code, report, output) = try await EndToEndTests.check([
            "--flow", "google-sign-in-web", "--backend", backend.url, "--provider-port", String(providerPort),
            "--registration", registration.path,
        ])
        return Run(code: code, report: report, output: output)
    }

    /// What every misconfigured run must show: exit 1, exactly one root-cause line holding
    /// `expected`, no reject case passed, every accept case failed, every inconclusive item
    /// carrying the provider calls it caused, and no passing scenario that reached the backend's
    /// sign-in.
    static func expectNothingProven(_ run: Run, cause expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.code == 1, sourceLocation: sourceLocation)
        let causeLines = run.output.split(separator: "\n").filter { $0.hasPrefix("Root cause: ") }
        #expect(causeLines.count == 1, "\(causeLines)\n\(run.output.suffix(3000))", sourceLocation: sourceLocation)
        for word in expected {
            #expect(causeLines.first?.contains(word) == true, "root cause line lacks \(word): \(causeLines)", sourceLocation: sourceLocation)
        }
        let cases = run.report.results.filter { $0.kind == .tokenCase }
        let rejects = cases.filter { $0.tokenCase?.expectation == "reject" }
        #expect(!rejects.isEmpty, sourceLocation: sourceLocation)
        #expect(rejects.allSatisfy { $0.verdict != .pass }, "passed without proof: \(rejects.filter { $0.verdict == .pass }.map(\.id))", sourceLocation: sourceLocation)
        #expect(rejects.contains { $0.verdict == .inconclusive }, sourceLocation: sourceLocation)
        let accepts = cases.filter { $0.tokenCase?.expectation == "accept" }
        #expect(accepts.allSatisfy { $0.verdict.failsRun }, "\(accepts.filter { !$0.verdict.failsRun }.map(\.id))", sourceLocation: sourceLocation)
        for item in run.report.results where item.verdict == .inconclusive {
            // The calls it caused, or — when it caused none (a request refused before any call) —
            // a note that says so.
            let evidence = item.evidence
            let accounted = evidence?.providerRequests.isEmpty == false || evidence?.notes.contains { $0.contains("made no call to the provider") } == true
            #expect(accounted, "\(item.id) carries no provider request: \(String(describing: evidence))", sourceLocation: sourceLocation)
            #expect(item.cause != nil, "\(item.id) names no cause", sourceLocation: sourceLocation)
        }
        #expect(run.report.summary.inconclusive == run.report.results.filter { $0.verdict == .inconclusive }.count, sourceLocation: sourceLocation)
        // A scenario that posted the sign-in to the backend cannot have passed.
        for scenario in run.report.results where scenario.kind == .scenario && scenario.verdict == .pass {
            #expect(scenario.scenario?.outcome != "success", "\(scenario.id) passed", sourceLocation: sourceLocation)
        }
    }

    @Test func wrongClientSecret() async throws {
        let run = try await Self.run(backendSecret: "not-the-registered-secret")
        Self.expectNothingProven(run, cause: ["invalid_client", "secret-mismatch"])
        #expect(!run.output.contains("not-the-registered-secret"), "secrets never printed")
    }

    @Test func wrongRedirectURI() async throws {
        let run = try await Self.run(backendRedirect: "https://app.example.com/wrong/callback")
        Self.expectNothingProven(run, cause: ["redirect_uri", "https://app.example.com/wrong/callback"])
    }

    @Test func clientIDTheProviderDoesNotKnow() async throws {
        let run = try await Self.run(backendClientID: "999-unknown.apps.googleusercontent.com")
        Self.expectNothingProven(run, cause: ["client_id", "999-unknown.apps.googleusercontent.com", "invalid_client"])
    }

    /// A registration for another client than the flow declares is said before the run.
    @Test func registrationForAnotherClientIsWarnedAbout() async throws {
        let registration = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-misconfig-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: registration) }
        let json = #"{"provider": "google", "client_id": "555-other.apps.googleusercontent.com", "client_secret": "s3cret-value-for-the-test", "redirect_uri": "https://elsewhere.example/cb"}"#
        try Data(json.utf8).write(to: registration)
        let output = CapturedOutput()
        // Port 1: nothing listens, so the run stops after the warnings (exit 3).
        let code = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "google-sign-in-web", "--backend", "http://127.0.0.1:1", "--registration", registration.path], console: output.console)
        #expect(code == 3)
        #expect(output.text.contains("warning: flow google-sign-in-web declares client_id \(Self.clientID), but the google registration is for 555-other.apps.googleusercontent.com"), "\(output.text)")
        #expect(output.text.split(separator: "\n").filter { $0.contains("unreachable") }.count == 1, "backend down: one line says so")
        #expect(!output.text.contains("s3cret-value-for-the-test"))
    }
}
}
