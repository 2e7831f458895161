/// Minimal JSON writing with a fixed key order, so generated files are byte-identical run to run.
enum JSONText {
    static func string(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x3C && $0 != 0x3E && $0 != 0x26 && $0 != 0xE2 }
        if plain { return "\"" + text + "\"" }
        var out: [UInt8] = [0x22]
        out.reserveCapacity(text.utf8.count + 16)
        let bytes = Array(text.utf8)
        var index = 0
        func escape(_ literal: StaticString) { literal.withUTF8Buffer { out.append(contentsOf: $0) } }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x22: escape("\\\"")
            case 0x5C: escape("\\\\")
            case 0x0A: escape("\\n")
            case 0x0D: escape("\\r")
            case 0x09: escape("\\t")
            case 0x3C: escape("\\u003c")
            case 0x3E: escape("\\u003e")
            case 0x26: escape("\\u0026")
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                // U+2028 and U+2029 end lines in JavaScript source.
                escape(bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                index += 2
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                escape("\\u00")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
            index += 1
        }
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }

    static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ",") + "]"
    }
}
