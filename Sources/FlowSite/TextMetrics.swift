import FlowModel

/// Estimates how wide text is in the theme's sans-serif font, so diagrams can be laid out at
/// build time without a font engine. Deliberately generous: a label that has a little more room
/// than it needs looks fine, one that overflows does not.
enum TextMetrics {
    /// Width in pixels of `text` at `size` px.
    static func width(_ text: String, size: Double = 13) -> Int {
        pixels(units(text), size: size)
    }

    /// Width in hundredths of an em: integers, so the width of joined words is the exact sum of
    /// their parts.
    static func units(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { units(utf8: $0) }
    }

    static func units(_ character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars { total += advance(scalar) }
        return total
    }

    static func pixels(_ units: Int, size: Double) -> Int {
        Int((Double(units) * size / 100).rounded(.up))
    }

    /// Advance widths in hundredths of an em, chosen to be at least as wide as the widest fonts
    /// of the theme's `system-ui` stack at regular and bold weight (DejaVu Sans, which Linux
    /// resolves `system-ui` to, averages 0.53 em per character over the flows' labels and its bold
    /// face about 0.61 em): 0.62 em for any character, more for capitals and the widest letters.
    /// Laying out with a conservative width means a label may get a little more room than it
    /// needs, never less, so labels do not run into each other or out of their frames.
    private static func advance(_ scalar: Unicode.Scalar) -> Int { advance(scalar.value) }

    private static func advance(_ value: UInt32) -> Int {
        switch value {
        case 0x6D, 0x77, 0x4D, 0x57, 0x40, 0x25: return 100 // m w M W @ %
        case 0x41...0x5A: return 78 // other capitals
        case 0x0300...0x036F: return 0 // combining marks
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0x1F300...0x1FAFF:
            return 100 // wide (CJK, Hangul, emoji)
        default: return 62 // everything else, including Latin with diacritics, Cyrillic, Greek
        }
    }

    /// Greedy word wrap into lines no wider than `maxWidth`; at most `maxLines` lines, the last
    /// one ending in `…` when text was cut. A single word wider than the limit is cut as well.
    /// Each word is measured once; a line's width is the sum of its words and spaces. Words and
    /// lines are UTF-8 bytes (a String per word and per joined line cost 25 000 instructions a
    /// label); the words are `words(text)`'s.
    static func wrap(_ text: String, maxWidth: Int, size: Double = 13, maxLines: Int = 3) -> [String] {
        let space = advance(0x20)
        var lines: [String] = []
        var current = OutputBytes(capacity: 256)
        var currentUnits = 0
        var truncated = false
        forEachWord(of: text) { word in
            let wordUnits = units(utf8: word)
            let candidateUnits = current.count == 0 ? wordUnits : currentUnits + space + wordUnits
            if pixels(candidateUnits, size: size) <= maxWidth {
                if current.count > 0 { current.append(0x20) }
                current.append(contentsOf: word)
                currentUnits = candidateUnits
                return true
            }
            if current.count > 0 {
                lines.append(current.string)
                current.truncate(to: 0)
                currentUnits = 0
                if lines.count == maxLines { truncated = true; return false }
            }
            if pixels(wordUnits, size: size) <= maxWidth {
                current.append(contentsOf: word)
                currentUnits = wordUnits
            } else {
                let shortened = cut(String(decoding: word, as: UTF8.self), toFit: maxWidth, size: size)
                current.append(utf8: shortened)
                currentUnits = units(shortened)
            }
            return true
        }
        if !truncated, current.count > 0 {
            if lines.count == maxLines { truncated = true } else { lines.append(current.string) }
        }
        if truncated, var last = lines.popLast() {
            let ellipsis = units("…")
            var lastUnits = units(last)
            while !last.isEmpty, pixels(lastUnits + ellipsis, size: size) > maxWidth {
                lastUnits -= units(last.removeLast())
            }
            lines.append(last + "…")
        }
        return lines.isEmpty ? [""] : lines
    }

    /// Calls `body` with the UTF-8 bytes of each of `words(text)`, in order, until it returns false.
    private static func forEachWord(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var text = text
        let done = text.withUTF8 { bytes -> Bool in
            guard splitsOnBytes(bytes) else { return false }
            forEachRange(bytes) { body(UnsafeBufferPointer(rebasing: bytes[$0])) }
            return true
        }
        if done { return }
        for var word in words(text) {
            if !word.withUTF8({ body($0) }) { return }
        }
    }

    /// Width in hundredths of an em of UTF-8 bytes (valid UTF-8: a String's own). An ASCII
    /// byte's advance is read from `asciiAdvances` (the `advance` switch cost a dozen
    /// instructions a byte); other scalars go through `advance`.
    static func units(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        asciiAdvances.withUTF8Buffer { table in
            var total = 0
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                if lead < 0x80 {
                    total += Int(table[Int(lead)])
                    index += 1
                } else {
                    total += advance(UTF8Scalar.value(startingAt: index, in: bytes))
                    index += lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                }
            }
            return total
        }
    }

    /// `advance` of each ASCII byte, as the byte's value: `>` 62, `N` 78 (capitals), `d` 100
    /// (m w M W @ %). `TextMetricsTests` holds it to `advance`'s rule.
    private static let asciiAdvances: StaticString =
        ">>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>d>>>>>>>>>>>>>>>>>>>>>>>>>>dNNNNNNNNNNNNdNNNNNNNNNdNNN>>>>>>>>>>>>>>>>>>d>>>>>>>>>d>>>>>>>>"

    /// `text` split into words at spaces, newlines and tabs (as Characters: a space followed by a
    /// combining mark is one Character, not a separator).
    static func words(_ text: String) -> [String] {
        byteSplitWords(text) ?? text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
    }

    /// `words` on UTF-8 bytes, when that gives the same split as Characters. A tab or a line
    /// feed is always a Character of its own (grapheme break rules GB4, GB5), except a line feed
    /// after a carriage return (GB3): no fast path with a CR. A space joins a following Extend,
    /// ZWJ or SpacingMark scalar (GB9, GB9a) and a preceding Prepend one (GB9b); none of those
    /// is below U+0300, in Latin Extended Additional (U+1E00–U+1EFF, Vietnamese), in the dashes,
    /// quotes and bullets of General Punctuation (U+2010–U+2027, U+2030–U+205E: not its ZWNJ,
    /// ZWJ or format characters) or in the arrows, symbols and shapes the diagrams draw
    /// (U+2190–U+27BF: `→`, `■`), and no Prepend is below U+0600, so the fast path takes spaces
    /// whose neighbours are there: all of English, Turkish and Vietnamese text, and the diagrams'
    /// labels. Nil otherwise (a combining mark after a space, say).
    static func byteSplitWords(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            guard splitsOnBytes(bytes) else { return nil }
            var words: [String] = []
            forEachRange(bytes) { range in
                words.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                return true
            }
            return words
        }
    }

    /// Whether splitting the bytes at spaces, line feeds and tabs gives the Character split.
    private static func splitsOnBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<bytes.count {
            switch bytes[index] {
            case 0x0D:
                return false
            case 0x20:
                if index > 0, bytes[index - 1] >= 0x80, !Self.neverPrepend(UTF8Scalar.value(endingAt: index, in: bytes)) { return false }
                if index + 1 < bytes.count, bytes[index + 1] >= 0x80, !Self.neverJoinsBefore(UTF8Scalar.value(startingAt: index + 1, in: bytes)) { return false }
            default:
                break
            }
        }
        return true
    }

    /// The byte ranges of the words between spaces, line feeds and tabs, in order, until
    /// `body` returns false.
    private static func forEachRange(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Bool) {
        var start = -1
        for index in 0..<bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x09:
                if start >= 0 {
                    if !body(start..<index) { return }
                    start = -1
                }
            default:
                if start < 0 { start = index }
            }
        }
        if start >= 0 { _ = body(start..<bytes.count) }
    }

    private static func neverPrepend(_ value: UInt32) -> Bool { value < 0x600 || isSymbolOrLatin(value) }

    private static func neverJoinsBefore(_ value: UInt32) -> Bool { value < 0x300 || isSymbolOrLatin(value) }

    /// Vietnamese letters, punctuation and symbols: no grapheme cluster extends across a space
    /// from any of them.
    private static func isSymbolOrLatin(_ value: UInt32) -> Bool {
        (0x1E00...0x1EFF).contains(value) || (0x2010...0x2027).contains(value) || (0x2030...0x205E).contains(value)
            || (0x2190...0x27BF).contains(value)
    }

    /// `text` shortened with `…` to fit `maxWidth`.
    static func cut(_ text: String, toFit maxWidth: Int, size: Double = 13) -> String {
        let total = units(text)
        if pixels(total, size: size) <= maxWidth { return text }
        let ellipsis = units("…")
        var result = ""
        var resultUnits = 0
        for char in text {
            let charUnits = units(char)
            if pixels(resultUnits + charUnits + ellipsis, size: size) > maxWidth { break }
            result.append(char)
            resultUnits += charUnits
        }
        return result + "…"
    }
}
