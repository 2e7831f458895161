@testable import FlowCLI
import FlowCheck
import FlowMocks
import FlowLint
import FlowParser
import FlowModel
import Foundation
import Testing

/// `check` plays whichever provider a flow names, and nothing when it names none.
extension CheckServers {
@Suite struct ProviderCheckTests {
    static let custom = Fixtures.directory.appendingPathComponent("custom-provider").path

    /// Runs `flowspec check PATH ARGS --report json:…` in-process.
    static func check(_ path: String, _ arguments: [String] = []) async throws -> (code: Int32, report: CheckReport, output: String) {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-providers-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let output = CapturedOutput()
        let code = await CheckCLI.run(arguments: [path] + arguments + ["--report", "json:\(json.path)"], console: output.console)
        let data = try #require(FileManager.default.contents(atPath: json.path), "no report; output:\n\(output.text)")
        return (code, try JSONReport.decode(data), output.text)
    }

    @Test func projectProfileIsPlayedFromItsFile() async throws {
        let (code, report, output) = try await Self.check(Self.custom)
        #expect(code == 0, "\(output.suffix(3000))")
        #expect(report.summary.fail == 0 && report.summary.pass >= 30, "\(report.summary)")
        // C18 runs because the profile issues azp; P9 does not (one issuer); no Apple-only case.
        let ids = Set(report.results.map(\.id))
        #expect(ids.contains("keycloak-login/audience/C18"))
        #expect(!ids.contains { $0.contains("/P9") || $0.contains("/P2") || $0.contains("/C17") || $0.contains("/C14") })
        #expect(output.contains("backend: embedded mock"))
    }

    @Test func profileFileInTheDocsIsTheTestedOne() throws {
        let fixture = try String(contentsOfFile: Self.custom + "/keycloak.provider.yml", encoding: .utf8)
        let docs = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/providers.md"), encoding: .utf8)
        #expect(docs.contains("```yaml\n" + fixture + "```"), "docs/providers.md must show keycloak.provider.yml as it is")
    }

    @Test func customProfileServesItsPathsAndIssuer() async throws {
        let run = Linter().lint(paths: [Self.custom])
        let flow = try #require(run.flows.first)
        let mocks = try await EmbeddedMocks.start(flows: run.flows, providers: run.providers)
        defer { Task { await mocks.stop() } }
        let provider = try #require(mocks.provider(forFlow: flow.id))
        let response = await provider.handle(MockHTTPRequest(method: "GET", target: "/realms/demo/.well-known/openid-configuration"))
        #expect(response.status == 200)
        let base = mocks.providerURLs[0].absoluteString.trimmingSuffix("/")
        #expect(response.bodyText.contains("\"issuer\":\"\(base)/realms/demo\""), "\(response.bodyText)")
        #expect(response.bodyText.contains("\"jwks_uri\":\"\(base)/realms/demo/protocol/openid-connect/certs\""))
        await mocks.stop()
    }

    @Test func flowWithoutProviderStartsNoneAndGeneratesNoKey() async throws {
        let password = Fixtures.repositoryFlows + "/password-login.md"
        let (code, report, output) = try await Self.check(password)
        #expect(code == 0, "\(output)")
        #expect(report.summary.pass > 0)
        #expect(!output.contains("mock provider") && !output.contains("registration"), "\(output)")
        let run = Linter().lint(paths: [password])
        let mocks = try await EmbeddedMocks.start(flows: run.flows, providers: run.providers)
        #expect(mocks.providers.isEmpty)
        await mocks.stop()
        // A provider is started for a flow that names one, and makes its keys only when used.
        let apple = Linter().lint(paths: [Fixtures.repositoryFlows + "/apple-sign-in-web.md"])
        let withProvider = try await EmbeddedMocks.start(flows: apple.flows, providers: apple.providers)
        #expect(withProvider.providers.count == 1)
        #expect(await withProvider.providers[0].hasKeys == false)
        _ = await withProvider.providers[0].jwksJSON()
        #expect(await withProvider.providers[0].hasKeys)
        await withProvider.stop()
    }

    @Test func liveBackendRunWarnsAboutAMissingRegistrationOnlyForFlowsWithAProvider() async throws {
        // Nothing listens there: the run stops at the reachability probe, after the warnings.
        let output = CapturedOutput()
        let google = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "google-sign-in-web", "--backend", "http://127.0.0.1:9"], console: output.console)
        #expect(google == CommandExit.unreachable)
        #expect(output.text.contains("warning: no client registration for google"), "\(output.text)")
        #expect(output.text.contains("/oauth2/v3/certs"), "the Google paths are printed")
        let none = CapturedOutput()
        _ = await CheckCLI.run(arguments: [Fixtures.repositoryFlows, "--flow", "password-login", "--backend", "http://127.0.0.1:9"], console: none.console)
        #expect(!none.text.contains("registration") && !none.text.contains("mock provider"), "\(none.text)")
    }
}
}
