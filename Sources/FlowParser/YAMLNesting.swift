/// How deep a YAML (or JSON) text nests, measured on the text before Yams' recursive composer
/// sees it: flow brackets, and block indentation counted in pairs of spaces or dashes. The
/// front matter and `openapi:` descriptions are refused above their bound.
public enum YAMLNesting {
    public static func deepest(in yaml: String) -> (depth: Int, line: Int) { maximumNesting(of: yaml) }
}

/// Refuses YAML that would make a recursive composer blow the stack (deep nesting), before
/// Yams ever sees it. Real front matter nests 3 levels; 64 is generous. Also measures the
/// YAML header of a legacy document before `import` composes it.
package func maximumNesting(of yaml: String) -> (depth: Int, line: Int) {
    // Read as UTF-8 bytes: every byte this looks for is ASCII, and an ASCII byte never occurs
    // inside a multi-byte sequence, so this sees the code points libyaml sees (a `"` followed
    // by a combining mark is still a quote to it). A walk over `Character`s spent ~500
    // instructions a character on grapheme breaking: 40 % of composing a flow's front matter.
    var yaml = yaml
    return yaml.withUTF8 { bytes in
        var depth = 0
        var maximum = 0
        var maximumLine = 1
        var line = 1
        var indentDepth = 0
        var atLineStart = true
        var inQuote: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                line += 1
                atLineStart = true
                indentDepth = 0
                continue
            }
            if atLineStart {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") {
                    indentDepth += 1
                    if indentDepth / 2 > maximum { maximum = indentDepth / 2; maximumLine = line }
                    continue
                }
                atLineStart = false
            }
            if inQuote != 0 {
                if byte == inQuote { inQuote = 0 }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): inQuote = byte
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximum { maximum = depth; maximumLine = line }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
        return (maximum, maximumLine)
    }
}
