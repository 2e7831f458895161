import FlowModel
import Synchronization
/// HTML escaping for text and attribute values. Everything that comes from a spec goes through
/// here (or through a Mustache `{{…}}`), never straight into markup.
/// Where escaped markup is written: a page's bytes, or a diagram's writer (`SVGWriter`).
protocol EscapedOutput: ~Copyable {
    var count: Int { get }
    mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>)
    /// Drops what was written after the first `length` bytes.
    mutating func truncate(to length: Int)
}

extension Array: EscapedOutput where Element == UInt8 {
    mutating func truncate(to length: Int) { removeSubrange(length...) }
}

enum HTML {
    /// Escapes `& < > " '`. Fast path: returns the string untouched when nothing needs escaping.
    static func escape(_ text: String) -> String {
        var scanned = text
        guard scanned.withUTF8({ bytes in
            bytes.indices.contains { isEscaped(bytes[$0]) || (TerminalText.mayStartMark(bytes[$0]) && TerminalText.startsMark(bytes, at: $0)) }
        }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        appendEscaped(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func isEscaped(_ byte: UInt8) -> Bool {
        byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27
    }

    /// Escapes `& < > " '` (as `&amp; &lt; &gt; &quot; &#39;`) while copying UTF-8 bytes. Bidi
    /// overrides, zero-width and control characters become visible marks first
    /// (`TerminalText.marked`): one pass over the bytes, a second only when a scalar to mark is
    /// met.
    static func appendEscaped<Output: EscapedOutput & ~Copyable>(_ text: String, to out: inout Output) {
        var text = text
        let start = out.count
        let clean = text.withUTF8 { appendEscapedBytes($0, to: &out, stopAtMarks: true) }
        guard !clean else { return }
        out.truncate(to: start)
        var marked = TerminalText.marked(text)
        _ = marked.withUTF8 { appendEscapedBytes($0, to: &out, stopAtMarks: false) }
    }

    /// `appendEscaped` of a constant of the code (an SVG attribute's literal value).
    static func appendEscaped<Output: EscapedOutput & ~Copyable>(_ text: StaticString, to out: inout Output) {
        let start = out.count
        guard !text.withUTF8Buffer({ appendEscapedBytes($0, to: &out, stopAtMarks: true) }) else { return }
        out.truncate(to: start)
        appendEscaped(text.description, to: &out)
    }

    /// False, having written part of `bytes`, when `stopAtMarks` and a scalar to mark is met.
    /// Blocks of sixteen bytes with nothing to escape or mark, and a clean tail, are passed at
    /// once (`ByteBlocks.skip`); the others are read byte by byte.
    private static func appendEscapedBytes<Output: EscapedOutput & ~Copyable>(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout Output, stopAtMarks: Bool) -> Bool {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            index = ByteBlocks.skip(bytes, from: index, padding: 0x20) { block in
                ByteBlocks.equal(block, 0x26) .| ByteBlocks.equal(block, 0x3C) .| ByteBlocks.equal(block, 0x3E)
                    .| ByteBlocks.equal(block, 0x22) .| ByteBlocks.equal(block, 0x27) .| ByteBlocks.mayStartMark(block)
            }
            let blockEnd = min(index + 16, bytes.count)
            while index < blockEnd {
                let replacement: StaticString
                switch bytes[index] {
                case 0x26: replacement = "&amp;"
                case 0x3C: replacement = "&lt;"
                case 0x3E: replacement = "&gt;"
                case 0x22: replacement = "&quot;"
                case 0x27: replacement = "&#39;"
                case let byte where stopAtMarks && TerminalText.mayStartMark(byte) && TerminalText.startsMark(bytes, at: index): return false
                default:
                    index += 1
                    continue
                }
                if index > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                replacement.withUTF8Buffer { out.append(contentsOf: $0) }
                index += 1
                runStart = index
            }
        }
        if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        return true
    }

    /// A fragment identifier made of `[a-z0-9-]`, from any heading text (Vietnamese and Turkish
    /// letters are folded to ASCII where that is obvious, other letters are kept out).
    static func slug(_ text: String) -> String {
        text.isASCII ? asciiSlug(text) : unicodeSlug(text)
    }

    /// `slug` for any text: lowercased, decomposed, folded scalar by scalar; from a table of the
    /// scalars below U+3000 when every scalar is there (`tableSlug`), otherwise here.
    static func unicodeSlug(_ text: String) -> String { tableSlug(text) ?? scalarSlug(text) }

    /// `unicodeSlug` the long way: the whole text lowercased, each scalar decomposed.
    static func scalarSlug(_ text: String) -> String {
        var out = ""
        var lastDash = true
        for scalar in text.lowercased().unicodeScalars {
            let folded = fold(scalar)
            if let folded {
                out.append(folded)
                lastDash = false
            } else if !lastDash {
                out.append("-")
                lastDash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "section" : out
    }

    /// What each scalar below U+3000 adds to a slug, learned the first time it is met: 0 not yet
    /// known, 1 a separator, 2 lowercases to more than one scalar (`İ`: the text takes
    /// `scalarSlug`), otherwise the ASCII byte. Lowercasing and decomposing a scalar cost about
    /// 2 000 instructions, and Vietnamese headings are made of such scalars.
    private static let foldTable = Mutex<[UInt8]>([UInt8](repeating: 0, count: 0x3000))

    /// `unicodeSlug` from the table; nil when a scalar is not in it (U+3000 and above, or a
    /// scalar whose lowercase is several).
    static func tableSlug(_ text: String) -> String? {
        var out: [UInt8] = []
        var lastDash = true
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let code: UInt8
            switch value {
            case 0x61...0x7A, 0x30...0x39: code = UInt8(value)
            case 0x41...0x5A: code = UInt8(value) + 0x20
            case 0..<0x80: code = 1
            case 0x80..<0x3000: code = foldCode(scalar)
            default: return nil
            }
            if code == 2 { return nil }
            if code == 1 {
                if !lastDash { out.append(UInt8(ascii: "-")); lastDash = true }
            } else {
                out.append(code)
                lastDash = false
            }
        }
        while out.last == UInt8(ascii: "-") { out.removeLast() }
        return out.isEmpty ? "section" : String(decoding: out, as: UTF8.self)
    }

    private static func foldCode(_ scalar: Unicode.Scalar) -> UInt8 {
        let index = Int(scalar.value)
        let known = foldTable.withLock { $0[index] }
        if known != 0 { return known }
        let lower = Array(String(scalar).lowercased().unicodeScalars)
        var code: UInt8 = 2
        if lower.count == 1 { code = fold(lower[0]).flatMap { $0.asciiValue } ?? 1 }
        foldTable.withLock { $0[index] = code }
        return code
    }

    /// `slug` for ASCII text (most ids and headings), on bytes: the same result without
    /// lowercasing and decomposing a String.
    static func asciiSlug(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var lastDash = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.append(byte)
                lastDash = false
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                out.append(byte + 0x20)
                lastDash = false
            default:
                if !lastDash { out.append(UInt8(ascii: "-")); lastDash = true }
            }
        }
        while out.last == UInt8(ascii: "-") { out.removeLast() }
        return out.isEmpty ? "section" : String(decoding: out, as: UTF8.self)
    }

    private static func fold(_ scalar: Unicode.Scalar) -> Character? {
        if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) { return Character(scalar) }
        if scalar.value < 0x80 { return nil }
        // Decompose and keep the base letter when it is ASCII (é → e, ố → o, ş → s).
        let decomposed = String(scalar).decomposedStringWithCanonicalMappingLite
        if let first = decomposed.unicodeScalars.first, ("a"..."z").contains(first) { return Character(first) }
        switch scalar {
        case "đ": return "d"
        case "ı": return "i"
        default: return nil
        }
    }

    /// The first path segment of a URL when it has a scheme (`javascript`, `https`…), lowercased.
    static func scheme(of url: String) -> String? {
        var scheme = ""
        for char in url {
            if char == ":" { return scheme.isEmpty ? nil : scheme.lowercased() }
            if char.isLetter || char.isNumber || char == "+" || char == "-" || char == "." {
                scheme.append(char)
            } else {
                return nil
            }
        }
        return nil
    }
}

extension String {
    /// Canonical decomposition of Latin letters with diacritics, without Foundation (so slugs are
    /// the same on every platform). Covers the letters of Vietnamese, Turkish and Western Europe;
    /// anything else decomposes to itself.
    var decomposedStringWithCanonicalMappingLite: String {
        var out = ""
        for scalar in unicodeScalars {
            if let base = LatinFolding.base[scalar.value] {
                out.unicodeScalars.append(base)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

enum LatinFolding {
    /// Lowercase Latin letters with diacritics → ASCII base letter.
    static let base: [UInt32: Unicode.Scalar] = {
        let groups: [(String, Unicode.Scalar)] = [
            ("àáâãäåāăąǎạảấầẩẫậắằẳẵặ", "a"),
            ("çćĉċč", "c"),
            ("ďđ", "d"),
            ("èéêëēĕėęěẹẻẽếềểễệ", "e"),
            ("ĝğġģ", "g"),
            ("ĥħ", "h"),
            ("ìíîïĩīĭįıǐịỉ", "i"),
            ("ĵ", "j"),
            ("ķ", "k"),
            ("ĺļľŀł", "l"),
            ("ñńņňŉ", "n"),
            ("òóôõöøōŏőǒơọỏốồổỗộớờởỡợ", "o"),
            ("ŕŗř", "r"),
            ("śŝşšș", "s"),
            ("ţťŧț", "t"),
            ("ùúûüũūŭůűųǔưụủứừửữự", "u"),
            ("ŵ", "w"),
            ("ýÿŷỳỵỷỹ", "y"),
            ("źżž", "z"),
        ]
        var table: [UInt32: Unicode.Scalar] = [:]
        for (letters, base) in groups {
            for scalar in letters.unicodeScalars { table[scalar.value] = base }
        }
        return table
    }()
}
