@testable import FlowParser
import Testing
import TestSupport

/// `isSafeURL` reads an ASCII link target on its bytes; it must answer as the Character-level
/// check does, for every mix of case, whitespace and NUL written into a dangerous scheme.
@Suite struct SafeURLTests {
    @Test func bytesAnswerAsCharactersDo() {
        let pieces = ["java", "JaVa", "script", "SCRIPT", ":", "vb", "file", "FiLe", "data", "DATA", " ", "\t", "\n", "\r\n", "\u{B}", "\u{C}",
                      "\u{0}", "x", "https", "//", "e", "é", "\u{A0}", "\u{2028}", "\u{212A}", "%20", "&"]
        var random = SplitMix(seed: 0x5AFE)
        var unsafe = 0
        for _ in 0..<6000 {
            // Half start with a scheme split by the pieces, so that many are dangerous.
            let scheme = Bool.random(using: &random) ? ["ja", "va", "sc", "ri", "pt:"].map { $0 + (Int.random(in: 0..<3, using: &random) == 0 ? pieces.randomElement(using: &random)! : "") }.joined() : ""
            let url = scheme + (0..<Int.random(in: 0...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let answer = MarkdownRenderer.isSafeURL(url)
            #expect(answer == MarkdownRenderer.isSafeURLByCharacters(url), "\(url.debugDescription)")
            if !answer { unsafe += 1 }
        }
        #expect(unsafe > 500)
    }

    @Test func dangerousSchemesAreRefused() {
        for url in ["javascript:alert(1)", " JavaScript:x", "java\tscript:x", "jav\u{0}ascript:x", "\r\nvbscript:x", "FILE:///etc/passwd", "data:text/html,x"] {
            #expect(!MarkdownRenderer.isSafeURL(url), "\(url.debugDescription)")
        }
        for url in ["https://example.com", "javascrip", "/javascript:x", "./data:x", "mailto:a@b"] {
            #expect(MarkdownRenderer.isSafeURL(url), "\(url.debugDescription)")
        }
    }
}
