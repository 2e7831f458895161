import FlowModel
/// HTML escaping for text and attribute values. Everything that comes from a spec goes through
/// here (or through a Mustache `{{…}}`), never straight into markup.
enum HTML {
    /// Escapes `& < > " '`. Fast path: returns the string untouched when nothing needs escaping.
    static func escape(_ text: String) -> String {
        // Bidi overrides and invisible characters show as marks (`⟦U+202E⟧`), as in templates.
        let text = text.utf8.contains(where: { $0 == 0xC2 || $0 == 0xE2 || $0 == 0xEF || ($0 < 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D) })
            ? TerminalText.marked(text) : text
        var needs = false
        for byte in text.utf8 where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 {
            needs = true
            break
        }
        guard needs else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A fragment identifier made of `[a-z0-9-]`, from any heading text (Vietnamese and Turkish
    /// letters are folded to ASCII where that is obvious, other letters are kept out).
    static func slug(_ text: String) -> String {
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
