@testable import FlowLint
import FlowModel
import FlowParser
import Foundation
import Testing

/// `provider:` and token rules against provider profiles (FS802–FS805), and project profile
/// files (FS801, FS806): each fires at its line:col, and the built-in profiles parse.
@Suite struct ProviderRuleTests {
    func variant(_ original: String, _ replacement: String) -> MarkedSource {
        #expect(validSpec.contains(original), "fixture drifted: \(original)")
        return MarkedSource(validSpec.replacingOccurrences(of: original, with: replacement))
    }

    @Test func unknownProviderIsAnErrorWithDidYouMean() {
        let marked = variant("provider: apple", "1️⃣provider: gogle")
        expectDiagnostic("FS802", at: "1️⃣", in: marked, severity: .error, messageContains: "gogle")
        #expect(lint(marked).diagnostics.first { $0.code == "FS802" }?.hint == "did you mean 'google'?")
    }

    @Test func tokenRulesWithoutProviderAreAnError() throws {
        let marked = MarkedSource(validSpec.replacingOccurrences(of: "provider: apple\n", with: "")
            .replacingOccurrences(of: "## Token rules\n\n", with: "## Token rules\n\n1️⃣")
            .replacingOccurrences(of: #"{"code": "{{provider.code}}""#, with: #"{"code": "2️⃣{{provider.code}}""#))
        let found = lint(marked).diagnostics.filter { $0.code == "FS803" }
        // One for the token rules (at the table), one for the first provider value (at it).
        #expect(found.count == 2, "\(found.map(\.message))")
        for (marker, diagnostic) in zip(["1️⃣", "2️⃣"], found.sorted { $0.location < $1.location }.reversed()) {
            let position = try #require(marked.markers[marker])
            #expect(diagnostic.severity == .error && diagnostic.location.line == position.line && diagnostic.location.column == position.column, "\(diagnostic)")
        }
    }

    @Test func claimTheProviderNeverIssuesIsAnError() {
        let marked = variant("| audience | id_token | aud is {{client_id}} |", "| 1️⃣claims | id_token | `email_verified` and `is_private_email` as strings |")
        // Apple issues both: clean.
        #expect(lint(marked).diagnostics.filter { $0.code == "FS804" }.isEmpty)
        // Google never issues is_private_email.
        let google = MarkedSource(marked.raw.replacingOccurrences(of: "provider: apple", with: "provider: google"))
        expectDiagnostic("FS804", at: "1️⃣", in: google, severity: .error, messageContains: "is_private_email")
    }

    @Test func notificationRuleNeedsAProviderThatSendsThem() {
        let marked = variant("| audience | id_token | aud is {{client_id}} |", "| 1️⃣notifications | notification | verified |")
        #expect(lint(marked).diagnostics.filter { $0.code == "FS804" }.isEmpty, "Apple sends notifications")
        let google = MarkedSource(marked.raw.replacingOccurrences(of: "provider: apple", with: "provider: google"))
        expectDiagnostic("FS804", at: "1️⃣", in: google, messageContains: "notifications")
    }

    @Test func profileVariableMustBeDeclaredOrDefaulted() throws {
        let profile = ProviderProfile(
            id: "realmed", name: "Realmed", issuers: ["{{provider.url}}/realms/{{realm}}"],
            endpoints: .init(discovery: "/d", authorization: "/a", token: "/t", jwks: "/j"), clientAuthentication: [.clientSecretBasic])
        var profiles = BuiltinProviders.profiles
        profiles["realmed"] = profile
        let marked = variant("provider: apple", "provider: 1️⃣realmed")
        let run = Linter(providers: ProviderCatalog(profiles: profiles)).lint(sources: [(file: "flow.md", text: marked.text)])
        let found = run.diagnostics.filter { $0.code == "FS805" }
        #expect(found.count == 1 && found.first?.message.contains("realm") == true, "\(run.diagnostics.map(\.message))")
        let declared = MarkedSource(marked.raw.replacingOccurrences(of: "  client_id: com.example.app", with: "  client_id: com.example.app\n  realm: demo"))
        let clean = Linter(providers: ProviderCatalog(profiles: profiles)).lint(sources: [(file: "flow.md", text: declared.text)])
        #expect(clean.diagnostics.filter { $0.code == "FS805" }.isEmpty)
    }

    @Test func builtInProfilesParseAndSayWhatTheProvidersDo() throws {
        let profiles = BuiltinProviders.profiles
        #expect(Set(profiles.keys) == ["apple", "google", "microsoft", "oidc"])
        let google = try #require(profiles["google"])
        #expect(google.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(google.endpoints.jwks == "/oauth2/v3/certs")
        #expect(google.claim("email_verified")?.type == .boolean)
        let apple = try #require(profiles["apple"])
        #expect(apple.claim("email_verified")?.type == .stringBoolean)
        #expect(apple.clientAuthentication == [.appleClientSecret])
        let microsoft = try #require(profiles["microsoft"])
        let resolved = microsoft.resolved(variables: ["tenant_id": "72f988bf-86f1-41af-91ab-2d7cd011db47"])
        #expect(resolved.issuers == ["https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"])
        #expect(resolved.endpoints.token == "/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/token")
        #expect(microsoft.endpoints.revocation == nil)
    }

    @Test func projectProfileFileIsReadAndItsMistakesPointedAt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try validSpec.replacingOccurrences(of: "provider: apple", with: "provider: acme")
            .write(to: directory.appendingPathComponent("flow.md"), atomically: true, encoding: .utf8)
        try "extends: oidc\nname: ACME IdP\nissuers: [https://id.acme.example]\n"
            .write(to: directory.appendingPathComponent("acme.provider.yml"), atomically: true, encoding: .utf8)
        let run = Linter().lint(paths: [directory.path])
        #expect(run.diagnostics.filter { $0.severity == .error }.isEmpty, "\(run.diagnostics.map { "\($0.location) \($0.message)" })")
        let acme = try #require(run.providers.profile("acme"))
        #expect(acme.issuers == ["https://id.acme.example"])
        #expect(acme.endpoints.token == "/token", "inherited from oidc")

        // A misspelt key, at its line and column, with a did-you-mean.
        try "extends: oidc\nname: ACME IdP\nissuer: [https://id.acme.example]\n"
            .write(to: directory.appendingPathComponent("acme.provider.yml"), atomically: true, encoding: .utf8)
        let bad = Linter().lint(paths: [directory.path])
        let problem = try #require(bad.diagnostics.first { $0.code == "FS801" })
        #expect(problem.location.file.hasSuffix("acme.provider.yml") && problem.location.line == 3 && problem.location.column == 1)
        #expect(problem.hint == "did you mean 'issuers'?")
        #expect(bad.diagnostics.contains { $0.code == "FS802" }, "the flow's provider is then unknown")

        // A project profile cannot take a built-in id.
        try "extends: oidc\n".write(to: directory.appendingPathComponent("google.provider.yml"), atomically: true, encoding: .utf8)
        let taken = Linter().lint(paths: [directory.path])
        #expect(taken.diagnostics.contains { $0.code == "FS806" && $0.location.file.hasSuffix("google.provider.yml") })
    }
}

/// Claim names are found on bytes as they were found scalar by scalar.
@Suite struct ClaimNameScanTests {
    @Test func bytesFindTheNamesScalarsFound() {
        func reference(_ text: String) -> [String] {
            let short: Set<String> = ["azp", "tid", "oid", "hd", "acr", "amr", "sid", "ver"]
            var names: [String] = [], word = ""
            func flush() {
                if !word.isEmpty, word.utf8.contains(UInt8(ascii: "_")) || short.contains(word), word.first?.isLetter == true, !names.contains(word) { names.append(word) }
                word = ""
            }
            for scalar in text.unicodeScalars {
                if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" { word.unicodeScalars.append(scalar) } else { flush() }
            }
            flush()
            return names
        }
        let alphabet = ["a", "z", "_", "9", " ", "azp", "tid", "hd", "ver", "is_private", "é", "ş", "A", "-", "`", "_x", "0a", "\u{301}"]
        var state: UInt64 = 12
        func next() -> Int { state = state &* 6_364_136_223_846_793_005 &+ 1; return Int(truncatingIfNeeded: state >> 33) }
        for _ in 0..<5000 {
            let text = (0..<(next() % 16)).map { _ in alphabet[next() % alphabet.count] }.joined()
            #expect(ProviderRule.claimNames(in: text) == reference(text), "\(text.debugDescription)")
        }
        #expect(ProviderRule.claimNames(in: "`is_private_email` must be a bool; azp equals the client") == ["is_private_email", "azp"])
    }
}
