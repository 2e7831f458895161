@testable import FlowCLI
import FlowCheck
import Foundation
import Testing

/// `flowspec check` playing Google against an independent backend written with Flask and PyJWT
/// (Fixtures/interop/google_pyjwt_backend.py: a "tutorial-grade" backend that trusts the
/// library's checks, plus its own nonce and exchanged-`sub` comparison).
///
/// The cases the backend must fail are not taken from flowspec: they are derived from what
/// PyJWT lets through, and that is established here by a direct experiment
/// (Fixtures/interop/pyjwt_experiments.py builds tokens by hand with `cryptography` and runs
/// them through the backend's own verification function), checked against PyJWT's documented
/// behaviour. The checker must then report exactly those cases: no false failure, no missed
/// weakness.
extension CheckServers {
@Suite struct InteropTests {
    static let interop = Fixtures.directory.appendingPathComponent("interop")
    static let clientID = "1234567890-flowspecdemo.apps.googleusercontent.com"
    static let redirectURI = "https://app.example.com/auth/google/callback"

    struct Experiments {
        var observed: [String: Bool]
        var documented: [String: Bool]
        var version: String
    }

    /// Runs the PyJWT experiments (no flowspec involved).
    static func experiments() throws -> Experiments {
        let python = try #require(which("python3"), "python3 is needed (scripts/setup.sh --test)")
        let run = try runProcess(python, [interop.appendingPathComponent("pyjwt_experiments.py").path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "experiments printed: \(run.output)")
        let observed = try #require(object["observed"] as? [String: Bool], "experiments failed: \(run.output)")
        let documented = try #require(object["documented"] as? [String: Bool])
        #expect(object["control"] as? Bool == true, "an honest token must verify in the experiment itself")
        return Experiments(observed: observed, documented: documented, version: object["pyjwt_version"] as? String ?? "?")
    }

    /// Rows where PyJWT's documentation and its code disagree (both read for PyJWT 2.15.1): the
    /// docs say `exp`, `iat` and `nbf` must be numbers, but `jwt/api_jwt.py` converts them with
    /// `int(...)`, so numeric strings pass. The experiment decides; the expectation follows it.
    static let undocumentedLeniency: Set<String> = ["exp_string", "iat_string", "nbf_string"]

    /// The `rule/CASE[i]` items of flows/google-sign-in-web.md the backend must fail, from the
    /// experiment's findings (each line says which case sends which token).
    static func expectedFailures(_ accepted: [String: Bool]) -> Set<String> {
        var expected = Set<String>()
        func when(_ name: String, _ items: String...) { if accepted[name] == true { expected.formUnion(items) } }
        func unless(_ name: String, _ items: String...) { if accepted[name] == false { expected.formUnion(items) } }
        when("aud_array_with_other", "audience/C3")                      // aud = [ours, another]
        when("duplicate_aud_ours_then_other", "audience/C16[0]")         // "aud" twice: ours, then another
        when("duplicate_aud_other_then_ours", "audience/C16[1]")         // "aud" twice: another, then ours
        when("azp_other", "audience/C18")                                // azp another client
        unless("aud_single_element_array", "audience/P3")                // accept case
        when("exp_past", "expiry/C5[0]")
        when("exp_missing", "expiry/C5[1]")
        when("exp_string", "expiry/C6")
        when("iat_missing", "issued-at/C7")
        when("iat_future_hour", "issued-at/C9")
        when("crit_unknown", "algorithm/S11")
        when("alg_none", "algorithm/S3[0]", "algorithm/S3[1]", "algorithm/S3[2]")
        when("hs256_with_public_pem", "algorithm/S4[0]")
        when("sig_standard_base64_alphabet", "signature/S12[3]")
        when("iss_http", "issuer/C1[2]")
        unless("iss_no_scheme", "issuer/P9")                             // accept case: Google's second issuer
        when("jwk_header_attacker_key_unknown_kid", "key-id/S7")
        // A key published moments before it signs (P5 rotation, P6 rotation behind unusable
        // keys): refused while PyJWKClient's refetch cool-down lasts. The run is far shorter
        // than the 30 s cool-down (asserted below), so the rotation cases fail.
        unless("new_kid_right_after_rotation", "signature/P5", "signature/P6")
        // Not PyJWT's: the backend keeps no record of tokens it accepted (README: "It has no
        // replay cache"), so the same id_token and nonce with a fresh code for the same sign-in
        // is accepted again. The identical replay (C15[1]) is refused by Google's single-use code.
        expected.insert("nonce/C15[0]")
        // Not failures although PyJWT accepts the token: sub missing or empty (C11[0], C11[1])
        // and the exchanged token without sub (X3[2]) — the backend compares the posted token's
        // sub with the sub of the token it exchanged for this very sign-in, and they differ.
        // The payload-padding case (S12[4]) also pads the payload, which breaks the signature.
        return expected
    }

    @Test func tutorialGradePyJWTBackendFailsExactlyWhatTheLibraryLetsThrough() async throws {
        let experiments = try Self.experiments()
        for (name, documented) in experiments.documented where !Self.undocumentedLeniency.contains(name) {
            #expect(experiments.observed[name] == documented, "PyJWT \(experiments.version): \(name) documented \(documented), observed \(String(describing: experiments.observed[name]))")
        }
        let expected = Self.expectedFailures(experiments.observed)

        // A free port for the mock Google, so the backend can be told where it will be.
        let probe = try HostileServer(.raw(HostileServer.response(200)))
        let providerPort = probe.port
        probe.stop()
        let secretVariable = "FLOWSPEC_INTEROP_GOOGLE_SECRET"
        let secret = "interop-" + UUID().uuidString
        setenv(secretVariable, secret, 1)
        let backend = try PythonBackend.start(
            script: Self.interop.appendingPathComponent("google_pyjwt_backend.py").path,
            arguments: [
                "--provider-url", "http://127.0.0.1:\(providerPort)", "--client-id", Self.clientID,
                "--client-secret-env", secretVariable, "--redirect-uri", Self.redirectURI, "--port", "0",
            ])
        defer { backend.stop() }

        let registration = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-interop-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: registration) }
        let json = #"{"provider": "google", "client_id": "\#(Self.clientID)", "client_secret_env": "\#(secretVariable)", "redirect_uri": "\#(Self.redirectURI)"}"#
        try Data(json.utf8).write(to: registration)

        let started = ContinuousClock.now
        let (code, report, output) = try await EndToEndTests.check([
            "--flow", "google-sign-in-web", "--backend", backend.url, "--provider-port", String(providerPort),
            "--registration", registration.path,
        ])
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(25), "the rotation expectation assumes a run shorter than PyJWKClient's 30 s cool-down")

        let failing = Set(report.results.filter { $0.verdict.failsRun }.map { result in
            String(result.id.split(separator: "/", maxSplits: 1).last ?? "")
        })
        #expect(code == 1)
        #expect(failing == expected, """
            missed weaknesses: \(expected.subtracting(failing).sorted())
            false failures: \(failing.subtracting(expected).sorted())
            \(output.suffix(4000))
            """)
        // The scenarios themselves pass: the backend does the flow right for honest input.
        #expect(report.results.filter { $0.kind == .scenario }.allSatisfy { !$0.verdict.failsRun }, "\(output.suffix(3000))")
        #expect(!output.contains(secret), "the client secret never appears in the console")
    }
}
}

/// A Python backend started for a test: waits for its `listening on URL` line, stops on SIGTERM.
final class PythonBackend: @unchecked Sendable {
    let process: Process
    let url: String

    private init(process: Process, url: String) {
        self.process = process
        self.url = url
    }

    static func start(script: String, arguments: [String]) throws -> PythonBackend {
        let python = try #require(which("python3"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is `listening on http://127.0.0.1:PORT`.
        var line = Data()
        let handle = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on ") else {
            process.terminate()
            throw Fixtures.FixtureError(description: "the Python backend did not start: \(text)")
        }
        return PythonBackend(process: process, url: String(text.dropFirst("listening on ".count)))
    }

    /// SIGTERM, then SIGKILL if it has not exited within 3 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
