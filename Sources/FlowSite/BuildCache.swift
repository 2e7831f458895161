/// What a build remembers about each flow, stored inside the output (`.flowspec/cache`) so the
/// cache is swapped in atomically with the pages it describes. A line-based, tab-separated file
/// (parsed by hand: it is read on every rebuild, and must cost a few milliseconds for 10 000
/// flows).
struct BuildCache: Sendable {
    static let formatVersion = "flowspec-site-cache 5"
    static let relativePath = ".flowspec/cache"

    struct Entry: Sendable {
        var path: String
        /// Size and modification time of the spec when it was hashed (machine-specific).
        var stat: String
        var contentHash: String
        var id: String
        var lang: String
        var translationOf: String
        var title: String
        var pageKey: String
        var tags: [String]
        var card: String
        /// The file's own diagnostics (parse and per-flow rules), one JSON object per line.
        var diagnostics: String
    }

    var globalKey: String
    var entries: [Entry]

    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.reduce(0) { (sum: Int, entry: Entry) in sum + entry.card.utf8.count + 256 } + 64)
        out += Self.formatVersion.utf8
        out.append(0x0A)
        out += "global\t".utf8
        Self.escape(globalKey, into: &out)
        out.append(0x0A)
        for e in entries {
            out += "flow".utf8
            for field in [e.path, e.stat, e.contentHash, e.id, e.lang, e.translationOf, e.title, e.pageKey, e.tags.joined(separator: "\u{1F}"), e.card, e.diagnostics] {
                out.append(0x09)
                Self.escape(field, into: &out)
            }
            out.append(0x0A)
        }
        return out
    }

    /// Parses the file byte by byte (no Character processing: the cache holds megabytes).
    static func parse(_ bytes: [UInt8]) -> BuildCache? {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            if index > start { lines.append(bytes[start..<index]) }
            start = index + 1
        }
        if start < bytes.count { lines.append(bytes[start...]) }
        guard let first = lines.first, Array(first) == Array(formatVersion.utf8), lines.count >= 2 else { return nil }
        let globalFields = split(lines[1])
        guard globalFields.count == 2, Array(globalFields[0]) == Array("global".utf8) else { return nil }
        let globalKey = unescape(globalFields[1])
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count)
        for line in lines.dropFirst(2) {
            let fields = split(line)
            guard fields.count == 12, Array(fields[0]) == Array("flow".utf8) else { return nil }
            let f = fields.map(unescape)
            entries.append(Entry(
                path: f[1], stat: f[2], contentHash: f[3], id: f[4], lang: f[5], translationOf: f[6], title: f[7], pageKey: f[8],
                tags: f[9].isEmpty ? [] : f[9].split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init),
                card: f[10], diagnostics: f[11]
            ))
        }
        return BuildCache(globalKey: globalKey, entries: entries)
    }

    /// A search shard's cache: one `path<TAB>fragment` line per flow.
    static func serializeFragments(_ lines: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(lines.reduce(0) { $0 + $1.1.utf8.count + $1.0.utf8.count + 2 })
        for (path, fragment) in lines {
            escape(path, into: &out)
            out.append(0x09)
            escape(fragment, into: &out)
            out.append(0x0A)
        }
        return out
    }

    static func parseFragments(_ bytes: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            let fields = split(bytes[start..<index])
            if fields.count == 2 { result[unescape(fields[0])] = unescape(fields[1]) }
            start = index + 1
        }
        return result
    }

    private static func split(_ line: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var fields: [ArraySlice<UInt8>] = []
        var start = line.startIndex
        for index in line.indices where line[index] == 0x09 {
            fields.append(line[start..<index])
            start = index + 1
        }
        fields.append(line[start..<line.endIndex])
        return fields
    }

    static func escape(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            default: out.append(byte)
            }
        }
    }

    static func unescape(_ field: ArraySlice<UInt8>) -> String {
        guard field.contains(0x5C) else { return String(decoding: field, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(field.count)
        var escaping = false
        for byte in field {
            if escaping {
                switch byte {
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                default: out.append(byte)
                }
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
