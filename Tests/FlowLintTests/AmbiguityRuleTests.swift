@testable import FlowLint
import FlowModel
import Foundation
import TestSupport
import Testing

/// FS409: two steps that can come next at the same point with the same request but different
/// answers. The mock backend would have to guess; lint says so at the second request.
@Suite struct AmbiguityRuleTests {
    static func spec(second: String, secondStatus: Int = 409) -> String {
        """
        ---
        id: cart
        title: Cart
        lang: en
        actors:
          user: { name: Shopper, role: person }
          app: { name: Shop, role: client }
          backend: { name: API, role: backend }
        ---

        # Cart

        ## Steps

        ### 1. App creates a cart
        app → backend

        ```http
        POST /carts
        ```

        ```expect
        status: 201
        capture:
          cart: $.id
        ```

        ### 2. Shopper decides
        user → app

        - Pays → 3
        - Pays twice at once → 4

        ### 3. App checks out
        app → backend

        ```http
        POST /carts/{{cart}}/checkout
        ```

        ```expect
        status: 200
        ```

        - Paid → end: success

        ### 4. App checks out twice
        app → backend

        \(second)

        ```expect
        status: \(secondStatus)
        ```

        - Refused → end: rejected
        """
    }

    @Test func sameRequestDifferentAnswersIsWarnedAtTheSecondRequest() {
        let marked = MarkedSource(Self.spec(second: "1️⃣```http\nPOST /carts/{{cart}}/checkout\n```"))
        expectDiagnostic("FS409", at: "1️⃣", in: marked, severity: .warning, messageContains: "steps 3 and 4 can both come next after step 1")
        let run = lint(marked)
        #expect(run.diagnostics.first { $0.code == "FS409" }?.related.first?.message == "step 3's request")
    }

    @Test func differentRequestsOrTheSameAnswerAreFine() {
        for text in [
            Self.spec(second: "```http\nPOST /carts/{{cart}}/checkout?again=1\n```"),
            Self.spec(second: "```http\nPUT /carts/{{cart}}/checkout\n```"),
            Self.spec(second: "```http\nPOST /carts/{{cart}}/checkout\n```", secondStatus: 200),
        ] {
            let run = lint(MarkedSource(text))
            #expect(!run.diagnostics.contains { $0.code == "FS409" }, "\(run.diagnostics.map(\.message))")
        }
    }

    @Test func theRepositoryFlowsAreUnambiguous() {
        let flows = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("flows").path
        let run = Linter().lint(paths: [flows])
        #expect(run.flows.count >= 6)
        #expect(!run.diagnostics.contains { $0.code == "FS409" })
    }

    /// The byte matcher answers as the regular expression it replaced, on random samples and
    /// patterns with wildcards, regex metacharacters, every line terminator and non-ASCII.
    @Test func byteFitsIsTheRegexFits() {
        let alphabet = ["a", "b", "/", "{", "}", ".", "*", "(", "[", "\\", "$", "^", "é", "ạ", "\u{E000}", "\u{E000}", "\n", "\r", "\u{B}", "\u{C}",
                        "\u{85}", "\u{2028}", "\u{2029}", "x", "ab", "\r\n", "👍"]
        var generator = SplitMix(seed: 51)
        var byteAnswered = 0
        for _ in 0..<6000 {
            func text() -> String { (0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined() }
            let pattern = text()
            // Samples that fit often: the pattern with its wildcards filled in, or anything.
            let sample = Bool.random(using: &generator) ? pattern.replacingAll("\u{E000}", with: text().replacingAll("\u{E000}", with: "")) : text().replacingAll("\u{E000}", with: "x")
            #expect(AmbiguityRule.fits(sample, pattern) == AmbiguityRule.regexFits(sample, pattern), "\(sample.debugDescription) \(pattern.debugDescription)")
            if !sample.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " }) { byteAnswered += 1 }
        }
        #expect(byteAnswered > 1000)
    }

    /// Bodies are trimmed as Foundation's `whitespacesAndNewlines` trims them, ASCII ones on the
    /// Character-level path: random texts of whitespace, CR LF and non-ASCII at either end.
    @Test func bodiesTrimAsFoundationTrims() {
        let alphabet = [" ", "\t", "\n", "\r", "\r\n", "\u{B}", "\u{C}", "a", "{", "é", "\u{A0}", "\u{2028}", " \u{301}", "\u{85}", "x y"]
        var generator = SplitMix(seed: 58)
        var ascii = 0
        for _ in 0..<4000 {
            let body = (0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            #expect(AmbiguityRule.trimmed(body) == body.trimmingCharacters(in: .whitespacesAndNewlines), "\(body.debugDescription)")
            if body.utf8.allSatisfy({ $0 < 0x80 }) { ascii += 1 }
        }
        #expect(ascii > 200)
    }
}
