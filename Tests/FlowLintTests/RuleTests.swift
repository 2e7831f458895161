import FlowLint
import FlowModel
import Testing

/// Each rule: fires at the right line:col on a faulty spec, silent on the correct one.
@Suite struct RuleTests {
    func variant(_ original: String, _ replacement: String) -> MarkedSource {
        #expect(validSpec.contains(original), "fixture drifted: \(original)")
        return MarkedSource(validSpec.replacingOccurrences(of: original, with: replacement))
    }

    @Test func validSpecIsClean() {
        let run = lint(MarkedSource(validSpec))
        #expect(run.diagnostics.isEmpty, "\(run.diagnostics.map { "\($0.location) \($0.code) \($0.message)" })")
        #expect(run.flows.count == 1)
        #expect(run.exitCode(strict: true) == 0)
    }

    // MARK: Front matter

    @Test func missingFrontMatter() {
        let marked = MarkedSource("1️⃣# Just a document\n\nNo front matter here.\n")
        expectDiagnostic("FS101", at: "1️⃣", in: marked)
    }

    @Test func legacyHeaderGetsImportHint() {
        let run = lint(MarkedSource("```yaml\n Tiêu đề: x\n```\n"))
        #expect(run.diagnostics.first?.code == "FS101")
        #expect(run.diagnostics.first?.hint?.contains("flowspec import") == true)
    }

    @Test func yamlErrorPointsAtTheYAMLLine() {
        // The bad indentation is on file line 4; Yams reports it and we add the front matter offset.
        let marked = variant("title: Demo sign-in\n", "title: Demo sign-in\n  bad: [unclosed\n1️⃣summary2: x\n")
        let run = lint(marked)
        let yaml = run.diagnostics.filter { $0.code == "FS102" }
        #expect(yaml.count == 1)
        #expect(yaml.first.map { $0.location.line >= 3 && $0.location.line <= 5 } == true, "\(yaml)")
        #expect(run.exitCode(strict: false) == 1)
    }

    @Test func unknownKey() {
        expectDiagnostic("FS103", at: "1️⃣", in: variant("lang: en\n", "lang: en\n1️⃣langauge: vi\n"), severity: .warning)
        let run = lint(variant("lang: en\n", "lang: en\ntittle: x\n"))
        #expect(run.diagnostics.first { $0.code == "FS103" }?.hint == "did you mean 'title'?")
    }

    @Test func missingRequiredKey() {
        expectDiagnostic("FS104", at: "1️⃣", in: MarkedSource("1️⃣" + validSpec.replacingOccurrences(of: "title: Demo sign-in\n", with: "")),
                         messageContains: "'title'")
    }

    @Test func wrongType() {
        expectDiagnostic("FS105", at: "1️⃣", in: variant("tags: [auth]", "tags: 1️⃣{ a: b }"))
    }

    @Test func invalidID() {
        expectDiagnostic("FS106", at: "1️⃣", in: variant("id: demo-login", "id: 1️⃣Demo Login"))
    }

    @Test func unknownRole() {
        expectDiagnostic("FS107", at: "1️⃣", in: variant("role: provider }", "role: 1️⃣idp }"))
    }

    // MARK: Steps

    @Test func noSteps() {
        let marked = MarkedSource("1️⃣---\nid: x\ntitle: X\nactors:\n  a: { name: A, role: client }\n---\n\n# X\n\nJust prose.\n")
        expectDiagnostic("FS201", at: "1️⃣", in: marked)
    }

    @Test func duplicateStepReportedAtTheSecond() {
        let marked = variant("### 4. App loads the profile", "### 1️⃣3. App loads the profile")
        expectDiagnostic("FS202", at: "1️⃣", in: marked, messageContains: "step 3 is defined twice")
        let diagnostic = lint(marked).diagnostics.first { $0.code == "FS202" }
        #expect(diagnostic?.related.first?.location.line == 32)
    }

    @Test func gapInNumbers() {
        expectDiagnostic("FS203", at: "1️⃣", in: variant("### 4. App loads", "### 1️⃣6. App loads"), messageContains: "4–5 are missing")
    }

    @Test func missingActorsLine() {
        expectDiagnostic("FS204", at: "1️⃣", in: variant("### 1. User taps the button\nuser → app\n", "1️⃣### 1. User taps the button\n\nThe user taps.\n"))
    }

    @Test func undeclaredActor() {
        expectDiagnostic("FS205", at: "1️⃣", in: variant("### 2. App asks Apple\napp → apple", "### 2. App asks Apple\napp → 1️⃣aple"))
        let run = lint(variant("### 2. App asks Apple\napp → apple", "### 2. App asks Apple\napp → aple"))
        #expect(run.diagnostics.first { $0.code == "FS205" }?.hint == "did you mean 'apple'?")
    }

    @Test func nonStepHeadingInSteps() {
        expectDiagnostic("FS206", at: "1️⃣", in: variant("### 2. App asks Apple\napp → apple\n", "### 2. App asks Apple\napp → apple\n\n1️⃣### Note\n"), severity: .warning)
    }

    @Test func unusedActor() {
        expectDiagnostic("FS208", at: "1️⃣", in: variant("variables:", "  1️⃣spare: { name: Spare, role: client }\nvariables:"), severity: .warning)
    }

    // MARK: Transitions

    @Test func alternateToMissingStep() {
        expectDiagnostic("FS301", at: "1️⃣", in: variant("- Approved → 3", "- Approved → 1️⃣9"))
    }

    @Test func unreachableStep() {
        // Step 2 always goes to 4 or ends; nothing reaches 3.
        expectDiagnostic("FS302", at: "1️⃣", in: variant("- Approved → 3\n", "- Approved → 4\n").replacing("### 3. App", "### 1️⃣3. App"))
    }

    @Test func noPathToEnd() {
        // Step 4 loops to itself forever, and step 3 can only go there: neither reaches an end.
        let marked = variant("### 4. App loads the profile\napp → backend\n", "### 1️⃣4. App loads the profile\napp → backend\n\n- Again → 4\n")
            .replacing("### 3. App sends", "### 2️⃣3. App sends")
        let found = lint(marked).diagnostics.filter { $0.code == "FS303" }
        #expect(found.map(\.location.line) == [marked.markers["2️⃣"]!.line, marked.markers["1️⃣"]!.line])
        #expect(found.map(\.location.column) == [5, 5])
        #expect(lint(MarkedSource(validSpec)).diagnostics.allSatisfy { $0.code != "FS303" })
    }

    @Test func malformedAlternate() {
        expectDiagnostic("FS304", at: "1️⃣", in: variant("- Denied → end: cancelled", "- Denied → 1️⃣later"))
        expectDiagnostic("FS304", at: "1️⃣", in: variant("- Denied → end: cancelled", "1️⃣- Denied, no target"))
    }

    @Test func duplicateAlternateLabel() {
        expectDiagnostic("FS305", at: "1️⃣", in: variant("- Denied → end: cancelled", "- Denied → end: cancelled\n1️⃣- Approved → 3"), severity: .warning)
    }

    // MARK: Exchanges

    @Test func malformedHTTP() {
        expectDiagnostic("FS401", at: "1️⃣", in: variant("POST /api/login", "1️⃣SEND /api/login"))
        expectDiagnostic("FS401", at: "1️⃣", in: variant("POST /api/login", "POST 1️⃣https://example.com/api/login"))
        expectDiagnostic("FS401", at: "1️⃣", in: variant("Content-Type: application/json\n\n{\"code\"", "1️⃣Content-Type application/json\n\n{\"code\""))
    }

    @Test func malformedExpect() {
        expectDiagnostic("FS402", at: "1️⃣", in: variant("status: 200\njson:", "status: 1️⃣two hundred\njson:"))
        expectDiagnostic("FS402", at: "1️⃣", in: variant("  $.session: { type: string }", "  1️⃣$..session: { type: string }"))
        expectDiagnostic("FS402", at: "1️⃣", in: variant("capture:\n  session: $.session", "1️⃣captures:\n  session: $.session"))
    }

    @Test func expectWithoutHTTP() {
        expectDiagnostic("FS403", at: "1️⃣", in: variant("### 1. User taps the button\nuser → app\n",
                                                          "### 1. User taps the button\nuser → app\n\n1️⃣```expect\nstatus: 200\n```\n"))
    }

    @Test func placeholderBeforeCapture() {
        expectDiagnostic("FS404", at: "1️⃣", in: variant("Authorization: Bearer {{session}}", "Authorization: Bearer 1️⃣{{sesion}}"),
                         messageContains: "before any step captures")
        // Used in step 3 but captured only in step 4.
        let marked = variant("\"client\": \"{{client_id}}\"}", "\"client\": \"1️⃣{{profile}}\"}")
            .text.replacingOccurrences(of: "```expect\nstatus: 200\n```", with: "```expect\nstatus: 200\ncapture:\n  profile: $.id\n```")
        expectDiagnostic("FS404", at: "1️⃣", in: MarkedSource(markedAgain(marked)))
    }

    /// Re-inserts the marker lost by a plain-text rewrite (positions recomputed from the text).
    private func markedAgain(_ text: String) -> String {
        text.replacingOccurrences(of: "\"client\": \"{{profile}}\"", with: "\"client\": \"1️⃣{{profile}}\"")
    }

    @Test func unknownProviderValue() {
        expectDiagnostic("FS405", at: "1️⃣", in: variant("\"{{provider.code}}\"", "\"1️⃣{{provider.cod}}\""))
    }

    @Test func httpOnNonBackendStep() {
        expectDiagnostic("FS406", at: "1️⃣", in: variant("### 1. User taps the button\nuser → app\n",
                                                          "### 1. User taps the button\nuser → app\n\n1️⃣```http\nGET /x\n```\n"), severity: .warning)
    }

    @Test func backendStepWithoutHTTP() {
        let marked = variant("### 4. App loads the profile\napp → backend\n", "### 4. App loads the profile\n1️⃣app → backend\n")
            .text.replacingOccurrences(of: "```http\nGET /api/me\nAuthorization: Bearer {{session}}\n```\n\n```expect\nstatus: 200\n```", with: "")
        let run = Linter().lint(sources: [(file: "flow.md", text: marked)])
        let found = run.diagnostics.filter { $0.code == "FS407" }
        #expect(found.count == 1)
        #expect(found.first?.location.line == MarkedSource(validSpec).text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0 == "### 4. App loads the profile" }.map { $0 + 2 })
    }

    @Test func requestWithoutExpect() {
        let text = validSpec.replacingOccurrences(of: "```expect\nstatus: 200\n```", with: "")
            .replacingOccurrences(of: "```http\nGET /api/me", with: "1️⃣```http\nGET /api/me")
        expectDiagnostic("FS408", at: "1️⃣", in: MarkedSource(text), severity: .warning)
    }

    // MARK: Token rules

    @Test func unknownTokenRule() {
        expectDiagnostic("FS501", at: "1️⃣", in: variant("| audience | id_token |", "| 1️⃣audiance | id_token |"))
        #expect(lint(variant("| audience | id_token |", "| audiance | id_token |")).diagnostics.first { $0.code == "FS501" }?.hint == "did you mean 'audience'?")
    }

    @Test func malformedTokenTable() {
        expectDiagnostic("FS502", at: "1️⃣", in: variant("| Rule | Token | Requirement |", "1️⃣| Rule | Tok | Requirement |"))
    }

    @Test func tokenRuleStepMissing() {
        expectDiagnostic("FS503", at: "1️⃣", in: variant("id_token @ 3", "id_token 1️⃣@ 7"), messageContains: "does not exist")
        expectDiagnostic("FS503", at: "1️⃣", in: variant("id_token @ 3", "id_token 1️⃣@ 2"), messageContains: "sends no request")
    }

    @Test func tokenRuleWithoutStep() {
        expectDiagnostic("FS504", at: "1️⃣", in: variant("| signature | id_token @ 3 |", "| 1️⃣signature | id_token |"))
    }

    // MARK: Corpus

    @Test func translationOfUnknownFlow() {
        expectDiagnostic("FS601", at: "1️⃣", in: variant("lang: en\n", "lang: en\n1️⃣translation-of: nowhere\n"))
    }

    @Test func translationStructureDiffers() {
        let original = (file: "original.md", text: validSpec.replacingOccurrences(of: "id: demo-login", with: "id: demo-original"))
        let translation = variant("lang: en\n", "lang: vi\ntranslation-of: demo-original\n")
            .text.replacingOccurrences(of: "- Approved → 3", with: "- Đồng ý → 4")
        let marked = MarkedSource(translation.replacingOccurrences(of: "- Đồng ý → 4", with: "1️⃣- Đồng ý → 4"))
        expectDiagnostic("FS602", at: "1️⃣", in: marked, others: [original])
        // A faithful translation (same structure, other words) is silent.
        let faithful = validSpec.replacingOccurrences(of: "lang: en\n", with: "lang: vi\ntranslation-of: demo-original\n")
            .replacingOccurrences(of: "- Approved → 3", with: "- Đồng ý → 3")
            .replacingOccurrences(of: "### 1. User taps the button", with: "### 1. Người dùng nhấn nút")
        let run = Linter().lint(sources: [original, (file: "flow.md", text: faithful)])
        #expect(run.diagnostics.isEmpty, "\(run.diagnostics.map(\.message))")
    }

    @Test func duplicateFlowID() {
        let first = (file: "a.md", text: validSpec)
        let marked = variant("id: demo-login", "id: 1️⃣demo-login")
        let run = Linter().lint(sources: [first, (file: "flow.md", text: marked.text)])
        let found = run.diagnostics.filter { $0.code == "FS603" }
        #expect(found.count == 1)
        #expect(found.first?.location.file == "flow.md")
        #expect(found.first?.location.line == marked.markers["1️⃣"]?.line)
    }
}

extension MarkedSource {
    func replacing(_ old: String, _ new: String) -> MarkedSource {
        MarkedSource(raw.replacingOccurrences(of: old, with: new))
    }
}

import Foundation
