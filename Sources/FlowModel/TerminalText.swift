/// Text from a spec or a request made safe for a terminal: control characters (C0, DEL, C1)
/// and invisible format characters that reorder or hide text (bidirectional overrides and
/// isolates, zero-width characters) are shown as `\u{…}` escapes, so nothing read from a spec
/// or sent by a client can colour, move, link or rewrite what a reader sees.
public enum TerminalText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text with each unsafe scalar except tab, newline and carriage return shown as a
    /// visible mark (`⟦U+202E⟧`): for the site, where a bidi override in a title or a tag must
    /// show, not silently reorder what a reviewer reads. Fast path: untouched when clean.
    public static func marked(_ text: String) -> String {
        // No scalar to mark (most text, in any script): the text as it is.
        if !needsMarks(text) { return text }
        func kept(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\t" || scalar == "\r" }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar), !kept(scalar) {
                out += "⟦U+" + String(format4(scalar.value)) + "⟧"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `marked` changes `text`: one tight loop over its contiguous UTF-8.
    public static func needsMarks(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { needsMarks(utf8: $0) }
    }

    /// `needsMarks` of text given as its UTF-8 bytes (valid UTF-8). Sixteen bytes at a time
    /// (`ByteBlocks`): a block none of whose bytes may start a mark is passed at once (most
    /// text), the others are read byte by byte.
    public static func needsMarks(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            index = ByteBlocks.skip(bytes, from: index, padding: 0x20) { ByteBlocks.mayStartMark($0) }
            let blockEnd = Swift.min(index + 16, bytes.count)
            for at in index..<blockEnd where mayStartMark(bytes[at]) && startsMark(bytes, at: at) { return true }
            index = blockEnd
        }
        return false
    }

    /// Whether a UTF-8 byte can start a scalar `marked` replaces: a C0 control other than tab,
    /// newline and carriage return, DEL, or the lead byte of a C1 control (C2), of a zero-width,
    /// bidi or word-joiner character (E2) or of the byte-order mark (EF). A cheap first test;
    /// `startsMark` is the exact one.
    @inlinable @inline(__always)
    public static func mayStartMark(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0D: false
        case 0..<0x20, 0x7F, 0xC2, 0xE2, 0xEF: true
        default: false
        }
    }

    /// Whether the scalar at `index` (a lead byte of valid UTF-8) is one `marked` replaces: the
    /// encodings of `isUnsafe`'s ranges less tab, newline and carriage return. Exact, so text
    /// with an em dash, an arrow or curly quotes (E2 …) is not taken for text to mark.
    @inlinable
    public static func startsMark(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let byte = bytes[index]
        guard mayStartMark(byte) else { return false }
        func at(_ offset: Int) -> UInt8 { index + offset < bytes.count ? bytes[index + offset] : 0 }
        switch byte {
        case 0xC2: return (0x80...0x9F).contains(at(1))  // U+0080–U+009F
        case 0xE2:
            switch at(1) {
            case 0x80: return (0x8B...0x8F).contains(at(2)) || (0xAA...0xAE).contains(at(2))  // U+200B–200F, U+202A–202E
            case 0x81: return (0xA0...0xA4).contains(at(2)) || (0xA6...0xA9).contains(at(2))  // U+2060–2064, U+2066–2069
            default: return false
            }
        case 0xEF: return at(1) == 0xBB && at(2) == 0xBF  // U+FEFF
        default: return true  // C0 controls, DEL
        }
    }

    private static func format4(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Control characters (tab and newline too: one escaped value stays on one line), and the
    /// format characters Trojan Source uses (CVE-2021-42574) or that render as nothing.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }
}
