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
    var depth = 0
    var maximum = 0
    var maximumLine = 1
    var line = 1
    var indentDepth = 0
    var atLineStart = true
    var inQuote: Character?
    for character in yaml {
        if character == "\n" {
            line += 1
            atLineStart = true
            indentDepth = 0
            continue
        }
        if atLineStart {
            if character == " " || character == "-" {
                indentDepth += 1
                if indentDepth / 2 > maximum { maximum = indentDepth / 2; maximumLine = line }
                continue
            }
            atLineStart = false
        }
        if let quote = inQuote {
            if character == quote { inQuote = nil }
            continue
        }
        switch character {
        case "\"", "'": inQuote = character
        case "[", "{":
            depth += 1
            if depth > maximum { maximum = depth; maximumLine = line }
        case "]", "}":
            depth = max(0, depth - 1)
        default:
            break
        }
    }
    return (maximum, maximumLine)
}
