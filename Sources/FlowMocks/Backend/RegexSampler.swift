import Foundation

/// Produces a string that a (simple) regular expression matches in full, so the mock backend
/// can satisfy `{ matches: "…" }` expectations. Covers literals, escapes (`\d \w \s`), `.`,
/// classes, groups, alternation (first branch) and quantifiers; the result is checked with
/// NSRegularExpression and nil is returned when the pattern is beyond it.
enum RegexSampler {
    static func fullMatch(_ pattern: String, _ text: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$", options: [.dotMatchesLineSeparators]) else { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [], range: range) != nil
    }

    /// The first of `candidates` that matches, else a generated sample, else nil.
    static func sample(_ pattern: String, preferring candidates: [String] = []) -> String? {
        for candidate in candidates where fullMatch(pattern, candidate) { return candidate }
        var parser = Parser(chars: Array(pattern))
        let generated = parser.alternation()
        return fullMatch(pattern, generated) ? generated : nil
    }

    private struct Parser {
        let chars: [Character]
        var i = 0

        mutating func alternation() -> String {
            let first = sequence()
            while i < chars.count, chars[i] == "|" {
                i += 1
                _ = sequence()
            }
            return first
        }

        mutating func sequence() -> String {
            var out = ""
            while i < chars.count, chars[i] != "|", chars[i] != ")" {
                let atom = self.atom()
                out += quantify(atom)
            }
            return out
        }

        mutating func quantify(_ atom: String) -> String {
            guard i < chars.count else { return atom }
            var result = atom
            switch chars[i] {
            case "*", "?":
                i += 1
                result = ""
            case "+":
                i += 1
            case "{":
                var j = i + 1
                var digits = ""
                while j < chars.count, chars[j].isNumber {
                    digits.append(chars[j])
                    j += 1
                }
                if let count = Int(digits), let close = chars[j...].firstIndex(of: "}") {
                    i = close + 1
                    result = String(repeating: atom, count: count)
                } else {
                    return atom
                }
            default:
                return atom
            }
            if i < chars.count, chars[i] == "?" || chars[i] == "+" { i += 1 }  // lazy / possessive
            return result
        }

        mutating func atom() -> String {
            let c = chars[i]
            i += 1
            switch c {
            case "^", "$": return ""
            case ".": return "a"
            case "\\": return escape()
            case "[": return characterClass()
            case "(":
                if i + 1 < chars.count, chars[i] == "?" {
                    i += 1
                    if i < chars.count, chars[i] == ":" || chars[i] == "=" || chars[i] == "!" { i += 1 }
                }
                let inner = alternation()
                if i < chars.count, chars[i] == ")" { i += 1 }
                return inner
            default: return String(c)
            }
        }

        mutating func escape() -> String {
            guard i < chars.count else { return "" }
            let c = chars[i]
            i += 1
            switch c {
            case "d": return "1"
            case "w": return "a"
            case "s": return " "
            case "D", "W", "S": return "-"
            case "b", "B", "A", "z", "Z": return ""
            case "n": return "\n"
            case "t": return "\t"
            default: return String(c)
            }
        }

        mutating func characterClass() -> String {
            var negated = false
            if i < chars.count, chars[i] == "^" {
                negated = true
                i += 1
            }
            var members: [Character] = []
            var first = true
            while i < chars.count, chars[i] != "]" || first {
                first = false
                var c = chars[i]
                i += 1
                if c == "\\", i < chars.count {
                    let e = chars[i]
                    i += 1
                    c = e == "d" ? "1" : e == "w" ? "a" : e == "s" ? " " : e
                }
                if i + 1 < chars.count, chars[i] == "-", chars[i + 1] != "]" {
                    i += 2
                }
                members.append(c)
            }
            if i < chars.count { i += 1 }
            if negated {
                for candidate in "aZ0_-x" where !members.contains(candidate) { return String(candidate) }
                return "~"
            }
            return members.first.map(String.init) ?? ""
        }
    }
}
