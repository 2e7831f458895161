import Foundation
import Testing
@testable import FlowSite
import FlowModel
import TestSupport

/// Byte-level fast paths give exactly what the general code gives, on random text built from
/// the characters that make each path choose: ASCII and not, separators next to combining
/// marks, CR LF, invisible characters, the escaped five.
@Suite struct FastPathTests {
    static func texts(from alphabet: [String], count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
        }
    }

    /// How `TerminalText.marked` shows a scalar, written out for the references below.
    static func mark(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "⟦U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "⟧"
    }

    @Test func asciiSlugsAreTheGeneralSlugs() {
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for text in Self.texts(from: ascii + ["a", "Z", "7", " ", "-"], count: 4000, seed: 1) {
            #expect(HTML.asciiSlug(text) == HTML.unicodeSlug(text), "\(text.debugDescription)")
        }
        #expect(HTML.slug("Đăng nhập — Step 2") == HTML.unicodeSlug("Đăng nhập — Step 2"))
    }

    /// Slugs from the table of folded scalars are the slugs of lowercasing and decomposing the
    /// whole text: Vietnamese, Turkish (`İ` lowercases to two scalars), German, Greek (a final
    /// sigma), combining marks, and scalars past the table.
    @Test func tableSlugsAreScalarSlugs() {
        let alphabet = ["a", "Z", "7", " ", "-", "Đ", "đ", "ă", "Ạ", "ố", "Ư", "ş", "Ş", "İ", "ı", "ğ", "ß", "ẞ", "Σ", "σ", "ς", "é", "\u{301}", "ñ", "Ø",
                        "æ", "—", "→", "日", "👍", "ǅ", "ﬁ", "\u{1E9E}", "Ω", "й"]
        var taken = 0
        for text in Self.texts(from: alphabet, count: 6000, seed: 16) {
            #expect(HTML.unicodeSlug(text) == HTML.scalarSlug(text), "\(text.debugDescription)")
            if HTML.tableSlug(text) != nil { taken += 1 }
        }
        #expect(taken > 1000)
        #expect(HTML.tableSlug("Đăng nhập bằng Apple — Bước 3") == "dang-nhap-bang-apple-buoc-3")
        #expect(HTML.tableSlug("İstanbul") == nil)
    }

    @Test func byteSplitWordsAreCharacterWords() {
        // Scalars that join a space into one Character: combining marks (Extend), ZWJ, an emoji
        // modifier and a halfwidth voiced mark (Extend too), Thai SARA AM (SpacingMark), and
        // Prepend ones before it (U+0600, U+0D4E); and letters that never do.
        let alphabet = ["a", "B", "7", ".", " ", " ", "\n", "\t", "\r", "\r\n", "é", "ş", "ğ", "\u{301}", "\u{200D}", "👍", "ı",
                        "\u{600}", "\u{D4E}", "\u{E33}", "\u{1F3FB}", "\u{FF9E}", "ạ", "Ư", "đ", "\u{2FF}",
                        "→", "■", "—", "…", "\u{200C}", "\u{200D}", "\u{2060}", "\u{20D0}", "\u{FE0F}", "⚠", "✓"]
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
        #expect(TextMetrics.byteSplitWords("→ 3. Done — ■ end") == ["→", "3.", "Done", "—", "■", "end"])
        #expect(TextMetrics.byteSplitWords("a \u{200D}b") == nil)
        #expect(fastCount > 100)
        // A separator before a combining mark is part of a larger Character: no fast path.
        #expect(TextMetrics.byteSplitWords("a \u{301}b") == nil)
        #expect(TextMetrics.words("a \u{301}b") == ["a \u{301}b"])
    }

    /// The byte wrap gives the lines of the greedy wrap on Characters it replaced (written out
    /// below), on text that takes the byte path and text that does not, at every width from
    /// "one letter does not fit" to "all on one line", with cut words and cut lines.
    @Test func byteWrapIsTheCharacterWrap() {
        let alphabet = ["a", "B", "mm", "W", "7", ".", " ", " ", " ", "\n", "\t", "\r\n", "é", "ş", "ğ", "\u{301}", "👍", "ạ", "Ư", "đ",
                        "Sign", "in", "with", "Apple", "Đăng", "nhập", "Giriş", "yapın", "authorization_code", "…", "漢字"]
        var generator = SplitMix(seed: 4)
        for text in Self.texts(from: alphabet, count: 6000, seed: 5) {
            let maxWidth = Int.random(in: 4...320, using: &generator)
            let size = [12.0, 13.0].randomElement(using: &generator)!
            let maxLines = Int.random(in: 1...4, using: &generator)
            #expect(TextMetrics.wrap(text, maxWidth: maxWidth, size: size, maxLines: maxLines)
                == Self.characterWrap(text, maxWidth: maxWidth, size: size, maxLines: maxLines),
                "\(text.debugDescription) \(maxWidth) \(size) \(maxLines)")
        }
    }

    /// The wrap as it was, on Strings and Characters.
    static func characterWrap(_ text: String, maxWidth: Int, size: Double, maxLines: Int) -> [String] {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        let space = TextMetrics.units(" ")
        var lines: [String] = []
        var current = ""
        var currentUnits = 0
        var truncated = false
        for word in words {
            let wordUnits = TextMetrics.units(word)
            let candidateUnits = current.isEmpty ? wordUnits : currentUnits + space + wordUnits
            if TextMetrics.pixels(candidateUnits, size: size) <= maxWidth {
                current = current.isEmpty ? word : current + " " + word
                currentUnits = candidateUnits
                continue
            }
            if !current.isEmpty {
                lines.append(current)
                current = ""
                currentUnits = 0
                if lines.count == maxLines { truncated = true; break }
            }
            if TextMetrics.pixels(wordUnits, size: size) <= maxWidth {
                current = word
                currentUnits = wordUnits
            } else {
                current = TextMetrics.cut(word, toFit: maxWidth, size: size)
                currentUnits = TextMetrics.units(current)
            }
        }
        if !truncated, !current.isEmpty {
            if lines.count == maxLines { truncated = true } else { lines.append(current) }
        }
        if truncated, var last = lines.popLast() {
            let ellipsis = TextMetrics.units("…")
            var lastUnits = TextMetrics.units(last)
            while !last.isEmpty, TextMetrics.pixels(lastUnits + ellipsis, size: size) > maxWidth {
                lastUnits -= TextMetrics.units(last.removeLast())
            }
            lines.append(last + "…")
        }
        return lines.isEmpty ? [""] : lines
    }

    /// A number attribute is written as `String(number)` writes it, and text is escaped.
    @Test func svgNumbersAreTheirDigits() {
        var generator = SplitMix(seed: 6)
        let numbers = [0, 7, -1, 10, -10, 99, 100, 1_000_000, Int.max, Int.min] + (0..<2000).map { _ in Int.random(in: -100_000...100_000, using: &generator) }
        for number in numbers {
            var svg = SVGWriter()
            svg.element("rect", ["x": .number(number), "class": "a<b"])
            #expect(String(decoding: svg.bytes, as: UTF8.self) == "<rect x=\"\(number)\" class=\"a&lt;b\"/>")
        }
    }

    @Test func escapeIsTheByteEscaper() {
        let alphabet = ["a", "<", ">", "&", "\"", "'", "é", "\u{202E}", "\u{200B}", "\u{7}", "\u{7F}", "\u{85}", "\n", "\t", "\r", "©", "’", "\u{FEFF}", "ş", "ạ",
                        "—", "→", "\u{200A}", "\u{2029}", "\u{206A}", "\u{FFFD}"]
        for text in Self.texts(from: alphabet, count: 4000, seed: 3) {
            var bytes: [UInt8] = []
            HTML.appendEscaped(text, to: &bytes)
            #expect(HTML.escape(text) == String(decoding: bytes, as: UTF8.self), "\(text.debugDescription)")
        }
        #expect(HTML.escape("a\u{202E}<b") == "a⟦U+202E⟧&lt;b")
        #expect(HTML.escape("a\u{7F}b") == "a⟦U+007F⟧b")
    }

    /// The escaper reads sixteen bytes at a time: it writes what escaping scalar by scalar
    /// writes, wherever in a block the character to escape or mark falls (texts long enough to
    /// hold several blocks, with long clean stretches between).
    @Test func escapeIsTheScalarEscaper() {
        let alphabet = ["a", "bcdefgh", "<", ">", "&", "\"", "'", "é", "ạ", "\u{202E}", "\u{200B}", "\u{7}", "\u{7F}", "\u{85}", "\u{A0}", "\n", "\t", "\r",
                        "©", "’", "—", "\u{FEFF}", "\u{2029}", "\u{2066}", "👍", String(repeating: "x", count: 9),
                        String(repeating: "z", count: 16), String(repeating: "q", count: 23), "ạạạạạạ"]
        var generator = SplitMix(seed: 12)
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...60, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            var reference = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": reference += "&amp;"
                case "<": reference += "&lt;"
                case ">": reference += "&gt;"
                case "\"": reference += "&quot;"
                case "'": reference += "&#39;"
                case _ where TerminalText.isUnsafe(scalar) && scalar != "\n" && scalar != "\t" && scalar != "\r":
                    reference += Self.mark(scalar)
                default: reference.unicodeScalars.append(scalar)
                }
            }
            var bytes: [UInt8] = []
            HTML.appendEscaped(text, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == reference, "\(text.debugDescription)")
            #expect(HTML.escape(text) == reference, "\(text.debugDescription)")
            #expect(TerminalText.needsMarks(text) == (TerminalText.marked(text) != text), "\(text.debugDescription)")
        }
    }

    /// Each sixteen-byte test marks exactly the lanes of its kind, for every position and value
    /// next to the ones it looks for; a block is "any" when one lane is.
    @Test func blockTestsSeeEveryByte() {
        var generator = SplitMix(seed: 14)
        let fillers: [UInt8] = [0x20, 0x41, 0x61, 0x7E, 0x80, 0xBF, 0xC3, 0xE1, 0xFF]
        let probes: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0x5C, 0x7E, 0x7F, 0x80, 0xC1, 0xC2, 0xC3, 0xE2, 0xEE, 0xEF, 0xF0]
        for _ in 0..<2000 {
            var bytes = (0..<16).map { _ in fillers.randomElement(using: &generator)! }
            for _ in 0..<Int.random(in: 0...2, using: &generator) { bytes[Int.random(in: 0..<16, using: &generator)] = probes.randomElement(using: &generator)! }
            let block = ByteBlocks.Block(bytes)
            func lanes(_ mask: ByteBlocks.Mask) -> [Bool] { (0..<16).map { mask[$0] } }
            for value in probes {
                #expect(lanes(ByteBlocks.equal(block, value)) == bytes.map { $0 == value }, "\(bytes) \(value)")
                #expect(lanes(ByteBlocks.below(block, value)) == bytes.map { $0 < value }, "\(bytes) \(value)")
                #expect(ByteBlocks.isAny(ByteBlocks.equal(block, value)) == bytes.contains(value), "\(bytes) \(value)")
            }
            #expect(lanes(ByteBlocks.mayStartMark(block)) == bytes.map { $0 < 0x20 || [0x7F, 0xC2, 0xE2, 0xEF].contains($0) }, "\(bytes)")
            // The skip stops at the first block holding a candidate, never before it.
            let text = bytes + bytes.map { _ in UInt8(ascii: "a") } + bytes + [0x3C]
            let stop = text.withUnsafeBufferPointer { buffer in ByteBlocks.skip(buffer, from: 0) { ByteBlocks.equal($0, 0x3C) } }
            let firstBlock = text.firstIndex(of: 0x3C).map { $0 / 16 * 16 } ?? 48
            #expect(stop == min(firstBlock, 48), "\(bytes)")
        }
    }

    /// A tag's query value is what Foundation's percent-encoding writes for the same set, for
    /// every ASCII byte and for text in any script.
    @Test func tagQueryIsFoundationsPercentEncoding() {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~/")
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        let alphabet = ascii + ["é", "ş", "ı", "İ", "ạ", "Đ", "→", "👍", "\u{200B}", "\u{FEFF}", "e\u{301}", "中"]
        for text in ascii + Self.texts(from: alphabet, count: 3000, seed: 21) {
            #expect(PageRenderer.percentEncode(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text.debugDescription)")
        }
    }

    /// The padded skip tests a text's last bytes (fewer than 16) as one block: it passes the whole
    /// text exactly when no byte is a candidate, and otherwise stops at the start of the block, or
    /// of the tail, that holds the first one. Every length from 0 to 40, a candidate at every place.
    @Test func paddedSkipSeesTheTail() {
        let candidates: (ByteBlocks.Block) -> ByteBlocks.Mask = { ByteBlocks.equal($0, 0x3C) .| ByteBlocks.mayStartMark($0) }
        func isCandidate(_ byte: UInt8) -> Bool { byte == 0x3C || byte < 0x20 || [0x7F, 0xC2, 0xE2, 0xEF].contains(byte) }
        for length in 0...40 {
            for position in -1..<length {
                for probe: UInt8 in [0x3C, 0x00, 0x1F, 0xE2] {
                    var text = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    if position >= 0 { text[position] = probe }
                    for start in [0, min(3, length), min(17, length)] {
                        let stop = text.withUnsafeBufferPointer { ByteBlocks.skip($0, from: start, padding: 0x20, candidates) }
                        let first = text.indices.first { $0 >= start && isCandidate(text[$0]) }
                        let expected = first.map { start + ($0 - start) / 16 * 16 } ?? length
                        #expect(stop == expected, "length \(length), \(probe) at \(position), from \(start)")
                    }
                }
            }
        }
    }

    /// `marked`'s byte check skips only text with no scalar to mark: the same result as
    /// marking scalar by scalar. The alphabet holds each range's ends and the scalars just
    /// outside them that share its lead bytes (E2 80 8A, E2 80 A9, E2 80 AF, E2 81 9F, E2 81 A5,
    /// E2 81 AA, C2 A0, EF BB BE, EF BF BD).
    @Test func markingSkipsOnlyCleanText() {
        let alphabet = ["a", "é", "ş", "ạ", "©", "’", "\u{7}", "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "\u{200A}", "\u{200B}", "\u{200F}", "\u{2010}",
                        "\u{2029}", "\u{202A}", "\u{202E}", "\u{202F}", "\u{205F}", "\u{2060}", "\u{2064}", "\u{2065}", "\u{2066}", "\u{2069}",
                        "\u{206A}", "\u{FEFF}", "\u{FEFE}", "\u{FFFD}", "—", "→", "\n", "\t", "\r", "👍"]
        for text in Self.texts(from: alphabet, count: 4000, seed: 4) {
            var reference = ""
            for scalar in text.unicodeScalars {
                if TerminalText.isUnsafe(scalar), scalar != "\n", scalar != "\t", scalar != "\r" {
                    reference += Self.mark(scalar)
                } else {
                    reference.unicodeScalars.append(scalar)
                }
            }
            #expect(TerminalText.marked(text) == reference, "\(text.debugDescription)")
            #expect(TerminalText.needsMarks(text) == (reference != text), "\(text.debugDescription)")
        }
        // Punctuation that shares the zero-width characters' lead byte is clean text.
        #expect(!TerminalText.needsMarks("Apple → backend — “token” … \u{2029}"))
        #expect(TerminalText.needsMarks("a\u{2066}b") && TerminalText.needsMarks("\u{FEFF}") && TerminalText.needsMarks("\u{85}"))
    }

    /// `clip` copies runs of visible ASCII whole; it clips where the code point by code point
    /// version (kept here) did.
    @Test func clipCopiesRunsWhereItCopiedCodePoints() {
        func reference(_ text: String, limit: Int) -> String {
            var out: [UInt8] = [], count = 0, lastSpace = true, clipped = false
            let bytes = Array(text.utf8)
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                let end = min(index + length, bytes.count)
                var isSpace = lead == 0x20 || lead == 0x0A || lead == 0x09 || lead == 0x0D
                if length > 1, end - index == length {
                    var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                    for continuation in bytes[(index + 1)..<end] { value = value << 6 | UInt32(continuation & 0x3F) }
                    isSpace = value == 0x85 || value == 0xA0 || value == 0x1680 || (0x2000...0x200A).contains(value)
                        || value == 0x2028 || value == 0x2029 || value == 0x202F || value == 0x205F || value == 0x3000
                }
                if isSpace {
                    if !lastSpace { out.append(0x20); count += 1 }
                    lastSpace = true
                } else {
                    out.append(contentsOf: bytes[index..<end])
                    count += 1
                    lastSpace = false
                }
                index = end
                if count >= limit { clipped = true; break }
            }
            if clipped { return String(decoding: out, as: UTF8.self) + "…" }
            while out.last == 0x20 { out.removeLast() }
            return String(decoding: out, as: UTF8.self)
        }
        let alphabet = ["a", "bc", "~", "\u{7F}", "\u{1}", " ", "  ", "\n", "\t", "\r", "\u{A0}", "\u{2003}", "é", "ş", "👍", "\u{301}"]
        // Every White_Space scalar past ASCII, and neighbours of theirs that are not (same lead
        // bytes, next code point): the word runs tell them apart by their bytes.
        let spaces = ["\u{85}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}"]
        let notSpaces = ["ố", "Ạ", "\u{84}", "\u{A1}", "\u{1681}", "\u{200B}", "—", "\u{202A}", "\u{2030}", "\u{2060}", "\u{3001}", "\u{1F}"]
        for (index, text) in Self.texts(from: alphabet + spaces + notSpaces, count: 8000, seed: 5).enumerated() {
            let limit = [1, 2, 3, 5, 8, 13, 240][index % 7]
            #expect(PageRenderer.clip(text, limit: limit) == reference(text, limit: limit), "\(text.debugDescription) \(limit)")
        }
        // Prose: long runs of words (in several scripts) and single spaces, which `clip` passes
        // sixteen bytes at a time, broken now and then by what stops a block (two spaces, a
        // control, a space at a block's end, White_Space past ASCII and its neighbours that are
        // not), with limits around 16.
        var generator = SplitMix(seed: 6)
        let words = ["a", "of", "the", "token", "backend", "~}", "\u{7F}x", "Z9", "người", "dùng", "đăng", "nhập", "ş", "ğı", "öü", "👍",
                     "e\u{301}", "\u{1681}", "ố"]
        let breaks = ["  ", "\n", "\t", " \u{1}", "\u{85}", "\u{A0}", "©", "\u{2003}", "—", "“", " \u{3000}", "\u{3001}", "\u{1680}", " \u{1680}", "\u{205F}"]
        for index in 0..<6000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                text += Int.random(in: 0..<12, using: &generator) == 0 ? breaks.randomElement(using: &generator)! : " "
                text += words.randomElement(using: &generator)!
            }
            if index % 2 == 0 { text.removeFirst() }
            let limit = [15, 16, 17, 31, 32, 33, 47, 100, 240, 20_000][index % 10]
            #expect(PageRenderer.clip(text, limit: limit) == reference(text, limit: limit), "\(text.debugDescription) \(limit)")
        }
    }

    /// `PlainText.hasMarkup` passes blocks of sixteen bytes: it finds each markup byte at every
    /// position of texts long enough to have blocks, and only those.
    @Test func markupBytesAreFoundInEveryBlock() {
        let markup = Array("`*_[]<>&\\!~".utf8)
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 48, 70] {
            let plain = Array(String(repeating: "abc déf ", count: 10).utf8.prefix(length))
            #expect(!plain.withUnsafeBufferPointer(PlainText.hasMarkup))
            for position in plain.indices {
                for byte in 0...127 {
                    var text = plain
                    text[position] = UInt8(byte)
                    // (Only where the replaced byte was ASCII: the text stays UTF-8.)
                    guard plain[position] < 0x80 else { continue }
                    #expect(text.withUnsafeBufferPointer(PlainText.hasMarkup) == markup.contains(UInt8(byte)), "\(byte) at \(position) of \(length)")
                }
            }
        }
    }

    /// SVG numbers are written digit by digit: as `String(number)` writes them, at every length
    /// (the short ones take their own path) and at the extremes.
    @Test func svgDigitsAreTheDecimalDigits() {
        var numbers = [0, 1, 9, 10, 99, 100, 999, 1_000, 9_999, 10_000, 99_999, -1, -9, -10, -9_999, -10_000, Int.max, Int.min]
        var generator = SplitMix(seed: 12)
        for _ in 0..<2_000 { numbers.append(Int.random(in: -20_000...20_000, using: &generator)) }
        for number in numbers {
            var writer = SVGWriter()
            writer.digits(number)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(number))
        }
        var writer = SVGWriter()
        for piece: StaticString in ["", "x", "class", "12345678", "123456789", "<svg xmlns=\"http://www.w3.org/2000/svg\">"] { writer.raw(piece) }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "xclass12345678123456789<svg xmlns=\"http://www.w3.org/2000/svg\">")
    }

    /// Serve's snapshot writes each spec's stamp digit by digit: the same text as interpolation,
    /// for zero, signs, every length of number and the extremes.
    @Test func statSignatureIsTheInterpolatedOne() {
        var generator = SplitMix(seed: 11)
        var numbers = [0, 1, 9, 10, 99, 100, -1, -10, Int.max, Int.min, Int.max - 1, Int.min + 1, 999_999_999, 1_000_000_000]
        for digits in 1...18 {
            let low = Int(pow(10.0, Double(digits - 1)))
            numbers.append(Int.random(in: low..<(low * 10), using: &generator))
            numbers.append(-Int.random(in: low..<(low * 10), using: &generator))
        }
        for size in numbers {
            for seconds in numbers.shuffled(using: &generator).prefix(6) {
                let nanoseconds = numbers.randomElement(using: &generator)!
                #expect(FileSystem.signature(size: size, seconds: seconds, nanoseconds: nanoseconds) == "\(size):\(seconds).\(nanoseconds)")
            }
        }
    }
}
