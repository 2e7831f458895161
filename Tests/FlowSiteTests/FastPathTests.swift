import Testing
@testable import FlowSite
import FlowModel

/// Byte-level fast paths give exactly what the general code gives, on random text built from
/// the characters that make each path choose: ASCII and not, separators next to combining
/// marks, CR LF, invisible characters, the escaped five.
@Suite struct FastPathTests {
    /// A small deterministic generator (SplitMix64), so a failure names a reproducible seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func texts(from alphabet: [String], count: Int, seed: UInt64) -> [String] {
        var generator = Generator(state: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
        }
    }

    @Test func asciiSlugsAreTheGeneralSlugs() {
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for text in Self.texts(from: ascii + ["a", "Z", "7", " ", "-"], count: 4000, seed: 1) {
            #expect(HTML.asciiSlug(text) == HTML.unicodeSlug(text), "\(text.debugDescription)")
        }
        #expect(HTML.slug("Đăng nhập — Step 2") == HTML.unicodeSlug("Đăng nhập — Step 2"))
    }

    @Test func byteSplitWordsAreCharacterWords() {
        // Scalars that join a space into one Character: combining marks (Extend), ZWJ, an emoji
        // modifier and a halfwidth voiced mark (Extend too), Thai SARA AM (SpacingMark), and
        // Prepend ones before it (U+0600, U+0D4E); and letters that never do.
        let alphabet = ["a", "B", "7", ".", " ", " ", "\n", "\t", "\r", "\r\n", "é", "ş", "ğ", "\u{301}", "\u{200D}", "👍", "ı",
                        "\u{600}", "\u{D4E}", "\u{E33}", "\u{1F3FB}", "\u{FF9E}", "ạ", "Ư", "đ", "\u{2FF}"]
        var fastCount = 0
        for text in Self.texts(from: alphabet, count: 6000, seed: 2) {
            let characterWords = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            if let fast = TextMetrics.byteSplitWords(text) {
                fastCount += 1
                #expect(fast == characterWords, "\(text.debugDescription)")
            }
            #expect(TextMetrics.words(text) == characterWords, "\(text.debugDescription)")
        }
        // The fast path is taken for plain text (otherwise it would prove nothing).
        #expect(TextMetrics.byteSplitWords("Sign in with  Apple\tnow\n") == ["Sign", "in", "with", "Apple", "now"])
        #expect(TextMetrics.byteSplitWords("Đăng nhập bị từ chối ş ğ") == ["Đăng", "nhập", "bị", "từ", "chối", "ş", "ğ"])
        #expect(fastCount > 100)
        // A separator before a combining mark is part of a larger Character: no fast path.
        #expect(TextMetrics.byteSplitWords("a \u{301}b") == nil)
        #expect(TextMetrics.words("a \u{301}b") == ["a \u{301}b"])
    }

    @Test func escapeIsTheByteEscaper() {
        let alphabet = ["a", "<", ">", "&", "\"", "'", "é", "\u{202E}", "\u{200B}", "\u{7}", "\u{7F}", "\u{85}", "\n", "\t", "\r", "©", "’", "\u{FEFF}", "ş", "ạ"]
        for text in Self.texts(from: alphabet, count: 4000, seed: 3) {
            var bytes: [UInt8] = []
            HTML.appendEscaped(text, to: &bytes)
            #expect(HTML.escape(text) == String(decoding: bytes, as: UTF8.self), "\(text.debugDescription)")
        }
        #expect(HTML.escape("a\u{202E}<b") == "a⟦U+202E⟧&lt;b")
        #expect(HTML.escape("a\u{7F}b") == "a⟦U+007F⟧b")
    }

    /// `marked`'s byte pre-check skips only text with no scalar to mark: the same result as
    /// marking scalar by scalar.
    @Test func markingSkipsOnlyCleanText() {
        let alphabet = ["a", "é", "ş", "ạ", "©", "’", "\u{7}", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}", "\u{200B}", "\u{200F}", "\u{2010}",
                        "\u{202A}", "\u{202E}", "\u{2060}", "\u{2066}", "\u{2069}", "\u{FEFF}", "\u{FEFE}", "\n", "\t", "\r", "👍"]
        for text in Self.texts(from: alphabet, count: 4000, seed: 4) {
            var reference = ""
            for scalar in text.unicodeScalars {
                if TerminalText.isUnsafe(scalar), scalar != "\n", scalar != "\t", scalar != "\r" {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    reference += "⟦U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "⟧"
                } else {
                    reference.unicodeScalars.append(scalar)
                }
            }
            #expect(TerminalText.marked(text) == reference, "\(text.debugDescription)")
        }
    }
}
