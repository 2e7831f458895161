@testable import FlowCLI
@testable import FlowCheck
import FlowMocks
import FlowModel
import Foundation
import Testing

/// A hostile or broken backend gives a clear verdict, never a hang or a crash. Each server is
/// started on 127.0.0.1:0 and stopped by the test.
extension CheckServers {
@Suite struct HostileBackendTests {
    let transport = AHCTransport(bodyCap: 64 * 1024)

    func get(_ url: String, timeout: Double = 5) async -> HTTPResult {
        await transport.send(OutgoingRequest(method: "GET", url: url + "/me"), timeout: timeout)
    }

    /// A backend that never answers, and one that sends a head and stalls the body: both end
    /// as a timeout after the timeout, not before and not much later. AsyncHTTPClient's
    /// deadline ends when the head arrives; the body is bounded by the transport's own timer.
    @Test(arguments: [HostileServer.Behaviour.hang, .stallBody])
    func silentBackendTimesOutWithinTheTimeout(_ behaviour: HostileServer.Behaviour) async throws {
        let server = try HostileServer(behaviour)
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = await get(server.url, timeout: 0.5)
        let elapsed = ContinuousClock.now - started
        #expect(result.failure == .timeout(seconds: 0.5))
        #expect(result.status == nil)
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3))
        await transport.shutdown()
    }

    @Test func resetConnectionIsNamed() async throws {
        let server = try HostileServer(.reset)
        defer { server.stop() }
        let result = await get(server.url)
        #expect(result.status == nil)
        #expect(result.failure == .connectionReset)
        await transport.shutdown()
    }

    @Test func refusedConnectionIsNamed() async throws {
        let server = try HostileServer(.hang)
        let url = server.url
        server.stop()
        let result = await get(url)
        #expect(result.failure == .connectionRefused)
        await transport.shutdown()
    }

    @Test func redirectsAreNotFollowed() async throws {
        let server = try HostileServer(.raw(HostileServer.response(302, headers: ["Location": "http://127.0.0.1:1/elsewhere?token=abcdefghijklmnop"])))
        defer { server.stop() }
        let result = await get(server.url)
        #expect(result.status == 302)
        #expect(server.requests.count == 1)
        let check = ExpectationCheck(expectation: Expectation(status: StatusExpectation(codes: [200], location: .start(of: "x")), location: .start(of: "x")), response: result, interpolator: Interpolator(values: [:]))
        #expect(check.problems.first?.contains("redirect") == true)
        #expect(check.problems.first?.contains("abcdefghijklmnop") == false, "secrets in the Location are elided")
        await transport.shutdown()
    }

    @Test func hugeBodiesAreCutAtTheCap() async throws {
        let server = try HostileServer(.huge(bytes: 50 << 20))
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = await get(server.url, timeout: 10)
        #expect(result.status == 200)
        #expect(result.truncated)
        #expect(result.body.count == 64 * 1024)
        #expect(ContinuousClock.now - started < .seconds(8))
        await transport.shutdown()
    }

    @Test func nonJSONBodiesAreAClearProblem() async throws {
        let server = try HostileServer(.raw(HostileServer.response(200, headers: ["Content-Type": "text/html"], body: "<html>hi</html>")))
        defer { server.stop() }
        let result = await get(server.url)
        let expectation = Expectation(json: [JSONAssertion(path: JSONPath(parsing: "$.session")!, matcher: .type(.string), location: .start(of: "x"))], location: .start(of: "x"))
        let check = ExpectationCheck(expectation: expectation, response: result, interpolator: Interpolator(values: [:]))
        #expect(check.problems == ["body is not JSON (text/html, 15 bytes)"])
        await transport.shutdown()
    }

    // MARK: Whole items against hostile backends

    func runItems(against server: HostileServer, cases: [String], timeout: Double = 2) async throws -> [ItemResult] {
        let flows = try Fixtures.flows("hostile")
        let provider = MockProvider(registrations: [])
        _ = try await provider.start()
        defer { Task { await provider.stop() } }
        let providers = Dictionary(uniqueKeysWithValues: flows.map { ($0.id, FlowProvider(provider: provider, profile: provider.profile, nonce: .sha256)) })
        let env = RunEnvironment(backendURL: server.url, transport: transport, providers: providers, defaultClientID: "com.example.hostile", timeout: timeout, observeWait: 0.2)
        let items = Planner(caseFilter: cases).plan(flows: flows)
        let results = await Checker(environment: env, concurrency: 4).run(items: items, flows: flows)
        await provider.stop()
        await transport.shutdown()
        return Array(results)
    }

    @Test func backendThatAcceptsEverythingFailsTheRejectCases() async throws {
        let server = try HostileServer(.raw(HostileServer.response(200, headers: ["Content-Type": "application/json"], body: #"{"session":"sess-0123456789abcdef"}"#)))
        defer { server.stop() }
        let results = try await runItems(against: server, cases: ["P1", "S1", "path-1"])
        let byID = Dictionary(uniqueKeysWithValues: results.map { ($0.id, $0) })
        #expect(byID["hostile-login/signature/P1"]?.verdict == .pass)
        #expect(byID["hostile-login/path-1"]?.verdict == .pass)
        let s1 = try #require(byID["hostile-login/signature/S1[0]"])
        #expect(s1.verdict == .fail)
        #expect(s1.message?.contains("accepted (HTTP 200)") == true)
        #expect(s1.message?.contains("what it returned works") == true)
        // Evidence: the token decoded, signature elided, the session secret elided.
        let evidence = try #require(s1.evidence)
        #expect(evidence.token?.signature == "<elided>")
        #expect(evidence.response?.bodyExcerpt?.contains("sess-0123456789abcdef") == false)
    }

    @Test func serverErrorsAreNeverARejection() async throws {
        let server = try HostileServer(.raw(HostileServer.response(500, body: "Internal Server Error")))
        defer { server.stop() }
        let results = try await runItems(against: server, cases: ["S1[1]", "P1"])
        let s1 = try #require(results.first { $0.id == "hostile-login/signature/S1[1]" })
        #expect(s1.verdict == .fail)
        #expect(s1.message?.contains("server error HTTP 500") == true)
        #expect(results.first { $0.id == "hostile-login/signature/P1" }?.verdict == .fail)
    }

    @Test func hangingBackendGivesTimeoutVerdictsNotAHang() async throws {
        let server = try HostileServer(.hang)
        defer { server.stop() }
        let started = ContinuousClock.now
        let results = try await runItems(against: server, cases: ["S1", "path-1"], timeout: 0.5)
        #expect(ContinuousClock.now - started < .seconds(10))
        // S1's two variants, their rule's baseline (signature/P1) and path-1.
        #expect(results.map(\.id).sorted() == ["hostile-login/path-1", "hostile-login/signature/P1", "hostile-login/signature/S1[0]", "hostile-login/signature/S1[1]"])
        for result in results {
            #expect(result.verdict == .fail)
            #expect(result.message?.contains("timeout") == true, "\(result.id): \(result.message ?? "")")
        }
    }
}
}

extension CheckServers {
/// Escape sequences from a spec and from a backend's answer reach the console escaped: colours,
/// OSC 8 links, OSC 52 clipboard writes and bidi overrides are shown, never sent.
@Suite struct ConsoleEscapingTests {
    @Test func checkConsoleNeverCarriesARawEscape() async throws {
        let esc = "\u{1B}"
        let hostile = "\(esc)[31mred \(esc)]8;;https://evil.example\u{07}link\(esc)]8;;\u{07} \(esc)]52;c;ZXZpbA==\u{07} \u{202E}evil"
        // YAML forbids raw control characters: its escapes make the same string.
        let yamlHostile = #"\e[31mred \e]8;;https://evil.example\alink\e]8;;\a \e]52;c;ZXZpbA==\a \u202Eevil"#
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-escapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = """
        ---
        id: escapes
        title: "Escapes \(yamlHostile)"
        lang: en
        actors:
          app: { name: App, role: client }
          backend: { name: API, role: backend }
        variables:
          who: "\(yamlHostile)"
        ---

        # Escapes

        ## Steps

        ### 1. App posts \(hostile)
        app → backend

        ```http
        POST /api/echo
        Content-Type: application/json

        {"who": "{{who}}"}
        ```

        ```expect
        status: 200
        json:
          $.who: "{{who}}"
        ```
        """
        try Data(spec.utf8).write(to: directory.appendingPathComponent("escapes.md"))
        // The backend answers 500 with escapes in its reason, a header and the body.
        let server = try HostileServer(.raw("HTTP/1.1 500 \(esc)[2J\r\nContent-Type: text/plain\r\nX-Evil: \(esc)]52;c;ZXZpbA==\u{07}\r\nContent-Length: 24\r\nConnection: close\r\n\r\n\(esc)[2J\(esc)[31mboom\u{202E}!!!!!!!"))
        defer { server.stop() }
        let output = CapturedOutput()
        let code = await CheckCLI.run(arguments: [directory.path, "--backend", server.url], console: output.console)
        #expect(code == 1, "\(output.text)")
        #expect(output.text.contains("escapes/path-1"))
        #expect(!output.text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" }, "\(output.text)")
        #expect(output.text.contains(#"\u{1B}"#), "shown escaped")
    }
}
}
