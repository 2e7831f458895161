import FlowMocks
import FlowModel
import Foundation
import Testing
@testable import FlowSite

/// The checker's verdict sentences (`MessageKey`) in the page's language: every key the checker
/// can emit has Vietnamese and Turkish text in the default theme with the same placeholders as
/// its English, and a page shows the sentence of its language, or the report's English text when
/// the key is unknown (a report older or newer than this theme).
@Suite("Evidence sentences")
struct EvidenceSentenceTests {
    static let languages = ["vi", "tr"]

    @Test func everyKeyHasEnglishVietnameseAndTurkishTextWithTheSamePlaceholders() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        #expect(MessageKey.allCases.count >= 60)
        var problems: [String] = []
        for key in MessageKey.allCases {
            let english = VerdictMessage.placeholders(key.english)
            if key.english.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("\(key.rawValue): no English") }
            for language in Self.languages {
                guard let text = theme.labelTables[language]?["message_" + key.rawValue], !text.isEmpty else {
                    problems.append("\(key.rawValue): no \(language) text")
                    continue
                }
                let local = VerdictMessage.placeholders(text)
                if local != english { problems.append("\(key.rawValue) [\(language)]: placeholders \(local), English has \(english)") }
                if text == key.english, !english.isEmpty, key != .requestAnswered, key != .problemList, key != .httpStatus { problems.append("\(key.rawValue) [\(language)]: not translated") }
            }
        }
        // No label for a key the checker no longer emits.
        let known = Set(MessageKey.allCases.map { "message_" + $0.rawValue } + Self.fixedVariantTexts.keys.map { "message_" + $0 })
        for language in ["en"] + Self.languages {
            for name in (theme.labelTables[language] ?? [:]).keys where name.hasPrefix("message_") && !known.contains(name) {
                problems.append("\(language): \(name) is no MessageKey")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Every variant text of the catalogue that does not depend on the provider, by the key a
    /// sentence quotes it with (`variant_S3_0`), read from the catalogues themselves.
    static var fixedVariantTexts: [String: String] {
        var texts = ["variant_P1_0": TokenForgery.none.variantDescription ?? ""]
        for (id, list) in TokenForgery.catalogue {
            for (index, text) in list.enumerated() { texts["variant_\(id)_\(index)"] = text }
        }
        for id in ["X1", "X2", "X3"] {
            for (index, variant) in TokenEndpointOverride.variants(for: id).enumerated() { texts["variant_\(id)_\(index)"] = variant.description }
        }
        return texts
    }

    /// A token case's title and each of its variants have Vietnamese and Turkish text, told
    /// apart from the English (only `crit: ["x-unknown"]` and `kid ../../dev/null`, identifiers alone, read
    /// the same in every language).
    @Test func everyCaseTitleAndVariantIsTranslated() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        var problems: [String] = []
        let texts = TokenCase.catalogue.map { ("case_" + $0.id, $0.title) } + Self.fixedVariantTexts.map { ("message_" + $0.key, $0.value) }
        #expect(texts.count > 130)
        for (key, english) in texts {
            for language in Self.languages {
                guard let text = theme.labelTables[language]?[key], !text.isEmpty else {
                    problems.append("\(key): no \(language) text")
                    continue
                }
                if text == english, !["crit: [\"x-unknown\"]", "kid ../../dev/null"].contains(english) { problems.append("\(key) [\(language)]: not translated") }
            }
        }
        for language in Self.languages {
            let known = Set(TokenCase.catalogue.map { "case_" + $0.id })
            for name in (theme.labelTables[language] ?? [:]).keys where name.hasPrefix("case_") && !known.contains(name) {
                problems.append("\(language): \(name) is no catalogue case")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// A quoted variant is said by its catalogue key; a use of what a rejected request returned
    /// (`step N METHOD /path → HTTP s`) is keyed with the status it quotes.
    @Test func quotedVariantsAndStepCallsAreSaidInThePagesLanguage() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        var missing = VerdictMessage(.noStepSubmits, ["variant": "alg none, empty signature", "variant.key": "variant_S3_0"])
        let quoted = SiteResults.Verdict(status: .notExecutable, evidence: missing.english, evidenceKey: missing.key.rawValue, evidenceArgs: missing.args)
        #expect(PageRenderer.evidence(quoted, labels: theme.labels(for: "tr")) == "akışın hiçbir adımı bu varyantın sahtesini ürettiği token'ı göndermiyor: alg none, boş imza iletilemez")
        #expect(PageRenderer.evidence(quoted, labels: theme.labels(for: "en")) == missing.english)
        missing.args["variant.key"] = "variant_of_another_version"
        let unknown = SiteResults.Verdict(status: .notExecutable, evidence: missing.english, evidenceKey: missing.key.rawValue, evidenceArgs: missing.args)
        #expect(PageRenderer.evidence(unknown, labels: theme.labels(for: "tr"))?.hasSuffix(": alg none, empty signature iletilemez") == true)

        var use = VerdictMessage(.stepCall, ["step": "7", "method": "GET", "path": "/api/me"])
        use.quote(VerdictMessage(.httpStatus, ["status": "200"]), as: "response")
        var works = VerdictMessage(.returnedWorks, quoting: VerdictMessage(.rejected, ["status": "401"]), text: "rejected (HTTP 401)", as: "verdict")
        works.quote(use, as: "use")
        #expect(works.english == "rejected (HTTP 401); what it returned works: step 7 GET /api/me → HTTP 200")
        let verdict = SiteResults.Verdict(status: .fail, evidence: works.english, evidenceKey: works.key.rawValue, evidenceArgs: works.args)
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "vi")) == "đã từ chối (HTTP 401); thứ nó trả về vẫn dùng được: bước 7 GET /api/me → HTTP 200")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "tr")) == "reddedildi (HTTP 401); döndürdüğü şey çalışıyor: 7. adım GET /api/me → HTTP 200")
    }

    @Test func placeholdersAreFilledOnceAndLiteralBracesStay() {
        #expect(VerdictMessage.fill("{a} and {b}", ["a": "{b}", "b": "x"]) == "{b} and x")
        #expect(VerdictMessage(.stepPostsNoNonce, ["step": "4"]).english == "step 4 posts no JSON member holding {{provider.nonce}} alone: nothing to leave out")
        #expect(VerdictMessage.placeholders("{case}[{index}] {{provider.nonce}}") == ["case", "index"])
    }

    @Test func pageSaysTheSentenceInItsLanguageAndFallsBackToTheReportsText() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        let verdict = SiteResults.Verdict(status: .pass, evidence: "rejected (HTTP 401); nothing usable returned", evidenceKey: MessageKey.rejectedNothingUsable.rawValue, evidenceArgs: ["status": "401"])
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "vi")) == "đã từ chối (HTTP 401); không trả về gì dùng được")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "tr")) == "reddedildi (HTTP 401); kullanılabilir bir şey döndürülmedi")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "en")) == "rejected (HTTP 401); nothing usable returned")
        var old = verdict
        old.evidenceKey = "a_key_of_another_version"
        #expect(PageRenderer.evidence(old, labels: theme.labels(for: "vi")) == "rejected (HTTP 401); nothing usable returned")
        old.evidenceKey = nil
        #expect(PageRenderer.evidence(old, labels: theme.labels(for: "tr")) == "rejected (HTTP 401); nothing usable returned")
    }

    /// A sentence quoting another says both in the page's language; values quoted from the run
    /// reach the page escaped.
    @Test func quotedSentencesAreTranslatedAndValuesEscaped() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        let inner = VerdictMessage(.rejectedNothingUsable, ["status": "401"])
        let replay = VerdictMessage(.replay, quoting: inner, text: inner.english)
        #expect(replay.english == "replay: rejected (HTTP 401); nothing usable returned")
        let step = VerdictMessage(.stepFailed, ["step": "6"], quoting: replay, text: replay.english)
        let verdict = SiteResults.Verdict(status: .fail, evidence: step.english, evidenceKey: step.key.rawValue, evidenceArgs: step.args)
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "vi")) == "bước 6: phát lại: đã từ chối (HTTP 401); không trả về gì dùng được")
        // Quoted text that is no keyed sentence (a report from before problems were keyed) stays as it is.
        let plain = VerdictMessage(.stepFailed, ["step": "6"], quoting: nil, text: "expected status 200, got 500")
        let plainVerdict = SiteResults.Verdict(status: .fail, evidence: plain.english, evidenceKey: plain.key.rawValue, evidenceArgs: plain.args)
        #expect(PageRenderer.evidence(plainVerdict, labels: theme.labels(for: "tr")) == "6. adım: expected status 200, got 500")

        let hostile = VerdictMessage(.acceptedRuleNotEnforced, ["status": "200", "rule": "<script>alert(1)</script>"])
        let sentence = try #require(PageRenderer.evidence(SiteResults.Verdict(status: .fail, evidence: hostile.english, evidenceKey: hostile.key.rawValue, evidenceArgs: hostile.args), labels: theme.labels(for: "vi")))
        let html = theme.renderString(["status": "fail", "icon": "✗", "label": "không đạt", "evidence": .string(sentence)], template: "verdict-line")
        #expect(html.contains("backend không thực thi &lt;script&gt;alert(1)&lt;/script&gt;"), "\(html)")
        #expect(!html.contains("<script>"))
    }

    /// An expectation's problems are keyed too: a list of two, quoted in another sentence, is
    /// said item by item in the page's language, in the English order and with `; ` between.
    @Test func problemListsAreSaidItemByItem() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        let problems = VerdictMessage.list([
            VerdictMessage(.statusUnexpected, ["status": "500", "expected": "200"]),
            VerdictMessage(.valueAbsentExpectedPresent, ["what": "$.token"]),
        ])
        let message = VerdictMessage(.validTokenNotAccepted, quoting: problems, text: problems.english, as: "problems")
        #expect(message.english == "a valid token was not accepted: status 500, expected 200; $.token is absent, expected present")
        let verdict = SiteResults.Verdict(status: .fail, evidence: message.english, evidenceKey: message.key.rawValue, evidenceArgs: message.args)
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "vi"))
            == "token hợp lệ không được chấp nhận: mã trạng thái 500, cần 200; thiếu $.token, cần có")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "tr"))
            == "geçerli bir token kabul edilmedi: durum 500, beklenen 200; $.token yok, olması bekleniyordu")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "en")) == message.english)
        // One problem is itself, not a list of one.
        #expect(VerdictMessage.list([VerdictMessage(.noClientSecret)]).key == .noClientSecret)
    }

    /// Why nothing came back is keyed too: a timeout quoted in "no clear rejection" is said in
    /// the page's language, the English report text unchanged.
    @Test func transportFailuresAreSaidInThePagesLanguage() throws {
        let theme = try Theme.load(overrideDirectory: nil)
        let failure = VerdictMessage(.transportTimeout, ["seconds": "10"])
        let message = VerdictMessage(.noClearRejection, [:], quoting: failure, text: failure.english, as: "response")
        #expect(message.english == "no clear rejection: timeout: no complete answer within 10 s")
        let verdict = SiteResults.Verdict(status: .fail, evidence: message.english, evidenceKey: message.key.rawValue, evidenceArgs: message.args)
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "vi"))
            == "không có lời từ chối rõ ràng: hết thời gian: không có câu trả lời đầy đủ trong 10 giây")
        #expect(PageRenderer.evidence(verdict, labels: theme.labels(for: "tr"))
            == "açık bir ret yok: zaman aşımı: 10 sn içinde tam bir yanıt gelmedi")
    }
}
