/// What a build remembers about each flow, stored inside the output (`.flowspec/cache`) so the
/// cache is swapped in atomically with the pages it describes. A line-based, tab-separated file
/// (parsed by hand: it is read on every rebuild, and must cost a few milliseconds for 10 000
/// flows).
struct BuildCache: Sendable {
    static let formatVersion = "flowspec-site-cache 3"
    static let relativePath = ".flowspec/cache"

    struct Entry: Sendable {
        var path: String
        var contentHash: String
        var id: String
        var lang: String
        var translationOf: String
        var title: String
        var pageKey: String
        var tags: [String]
        var card: String
        var search: String
        /// The file's own diagnostics (parse and per-flow rules), one JSON object per line.
        var diagnostics: String
    }

    var globalKey: String
    var entries: [Entry]

    func serialized() -> String {
        var out = Self.formatVersion + "\n" + "global\t" + Self.escape(globalKey) + "\n"
        for e in entries {
            out += "flow"
            for field in [e.path, e.contentHash, e.id, e.lang, e.translationOf, e.title, e.pageKey, e.tags.joined(separator: "\u{1F}"), e.card, e.search, e.diagnostics] {
                out += "\t" + Self.escape(field)
            }
            out += "\n"
        }
        return out
    }

    static func parse(_ bytes: [UInt8]) -> BuildCache? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard lines.first == Substring(formatVersion) else { return nil }
        lines = lines.dropFirst()
        guard let globalLine = lines.first, globalLine.hasPrefix("global\t") else { return nil }
        let globalKey = unescape(globalLine.dropFirst("global\t".count))
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count)
        for line in lines.dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 12, fields[0] == "flow" else { return nil }
            let f = fields.map(unescape)
            entries.append(Entry(
                path: f[1], contentHash: f[2], id: f[3], lang: f[4], translationOf: f[5], title: f[6], pageKey: f[7],
                tags: f[8].isEmpty ? [] : f[8].split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init),
                card: f[9], search: f[10], diagnostics: f[11]
            ))
        }
        return BuildCache(globalKey: globalKey, entries: entries)
    }

    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for char in text.unicodeScalars {
            switch char {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(char)
            }
        }
        return out
    }

    static func unescape(_ text: Substring) -> String {
        guard text.utf8.contains(0x5C) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escaping = false
        for char in text.unicodeScalars {
            if escaping {
                switch char {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: out.unicodeScalars.append(char)
                }
                escaping = false
            } else if char == "\\" {
                escaping = true
            } else {
                out.unicodeScalars.append(char)
            }
        }
        return out
    }
}
