import FlowModel
import Foundation

/// Renders diagnostics for people (compiler-style text), for programs (JSON) and for
/// code-scanning UIs (SARIF 2.1.0). Output order is the diagnostics' order.
public enum DiagnosticPrinter {
    /// Compiler-style text: `file:line:col: error: message [FS202]`, the source line with a
    /// caret, then the hint and related locations. `lines` supplies source lines for the
    /// snippet (nil: read the file).
    public static func text(
        _ diagnostics: [Diagnostic], color: Bool, lines: ((String, Int) -> String?)? = nil
    ) -> String {
        let reader = lines ?? SourceLines().line
        var out = ""
        for diagnostic in diagnostics {
            let severity = diagnostic.severity.rawValue
            let painted: String
            switch diagnostic.severity {
            case .error: painted = paint(severity, "1;31", color)
            case .warning: painted = paint(severity, "1;33", color)
            case .note: painted = paint(severity, "1;36", color)
            }
            // Everything that came from a spec or a path is escaped: no control sequence reaches
            // the terminal (colours, links, OSC 52 clipboard writes, bidi overrides).
            out += paint(TerminalText.escaped("\(diagnostic.location):"), "1", color) + " \(painted): "
                + paint(TerminalText.escaped(diagnostic.message), "1", color) + " [\(diagnostic.code)]\n"
            if let line = reader(diagnostic.location.file, diagnostic.location.line) {
                // Code points as the column counts them, each shown escaped when unsafe.
                let shown = line.unicodeScalars.map { $0 == "\t" ? " " : TerminalText.escaped(String($0)) }
                let display = shown.joined()
                out += "  \(display)\n"
                let caretOffset = max(0, min(diagnostic.location.column - 1, shown.count))
                let width = shown.prefix(caretOffset).joined().reduce(0) { $0 + displayWidth($1) }
                out += "  " + String(repeating: " ", count: width) + paint("^", "1;32", color) + "\n"
            }
            if let hint = diagnostic.hint {
                out += "  " + paint("hint:", "1;36", color) + " \(TerminalText.escaped(hint))\n"
            }
            for related in diagnostic.related {
                out += "  " + paint("note:", "1;36", color) + " " + TerminalText.escaped("\(related.location): \(related.message)") + "\n"
            }
        }
        return out
    }

    /// One-line summary: "2 errors, 1 warning in 6 files".
    public static func summary(_ diagnostics: [Diagnostic], files: Int) -> String {
        func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        return "\(plural(diagnostics.errorCount, "error")), \(plural(diagnostics.warningCount, "warning")) in \(plural(files, "file"))"
    }

    /// JSON: `{"version":1,"files":[…],"diagnostics":[…],"summary":{…}}` (docs/cli.md).
    public static func json(_ diagnostics: [Diagnostic], files: [String]) -> String {
        let entries: [[String: Any]] = diagnostics.map { diagnostic in
            var entry: [String: Any] = [
                "code": diagnostic.code,
                "severity": diagnostic.severity.rawValue,
                "file": diagnostic.location.file,
                "line": diagnostic.location.line,
                "column": diagnostic.location.column,
                "message": diagnostic.message,
            ]
            if let hint = diagnostic.hint { entry["hint"] = hint }
            if !diagnostic.related.isEmpty {
                entry["related"] = diagnostic.related.map {
                    ["file": $0.location.file, "line": $0.location.line, "column": $0.location.column, "message": $0.message] as [String: Any]
                }
            }
            return entry
        }
        let document: [String: Any] = [
            "version": 1,
            "files": files,
            "diagnostics": entries,
            "summary": [
                "errors": diagnostics.errorCount,
                "warnings": diagnostics.warningCount,
                "notes": diagnostics.filter { $0.severity == .note }.count,
            ],
        ]
        return serialize(document)
    }

    /// SARIF 2.1.0 with one run, rule metadata for the codes that occur, code-point columns.
    public static func sarif(_ diagnostics: [Diagnostic], toolVersion: String) -> String {
        let codes = Array(Set(diagnostics.map(\.code))).sorted()
        let rules: [[String: Any]] = codes.map { code in
            [
                "id": code,
                "name": code,
                "shortDescription": ["text": DiagnosticCode.named(code)?.title ?? code],
                "helpUri": DiagnosticCode.named(code)?.documentation ?? "docs/flow-format.md#diagnostics",
            ]
        }
        let results: [[String: Any]] = diagnostics.map { diagnostic in
            var message = diagnostic.message
            if let hint = diagnostic.hint { message += " (\(hint))" }
            var result: [String: Any] = [
                "ruleId": diagnostic.code,
                "ruleIndex": codes.firstIndex(of: diagnostic.code) ?? 0,
                "level": diagnostic.severity.rawValue,
                "message": ["text": message],
                "locations": [physicalLocation(diagnostic.location)],
            ]
            if !diagnostic.related.isEmpty {
                result["relatedLocations"] = diagnostic.related.enumerated().map { index, related -> [String: Any] in
                    var location = physicalLocation(related.location)
                    location["id"] = index
                    location["message"] = ["text": related.message]
                    return location
                }
            }
            return result
        }
        let document: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": [
                    "name": "flowspec",
                    "version": toolVersion,
                    "semanticVersion": toolVersion,
                    "rules": rules,
                ]],
                "columnKind": "unicodeCodePoints",
                "results": results,
            ]],
        ]
        return serialize(document)
    }

    private static func physicalLocation(_ location: SourceLocation) -> [String: Any] {
        [
            "physicalLocation": [
                "artifactLocation": ["uri": location.file],
                "region": ["startLine": location.line, "startColumn": location.column],
            ],
        ]
    }

    private static func serialize(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func paint(_ text: String, _ code: String, _ enabled: Bool) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Terminal columns a character takes (East Asian wide characters take two).
    private static func displayWidth(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 1 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}

/// Reads source lines for snippets, caching each file once.
final class SourceLines: Sendable {
    private let cache = Locked<[String: [String]]>([:])

    func line(_ file: String, _ number: Int) -> String? {
        let lines = cache.withLock { cache in
            if let lines = cache[file] { return lines }
            guard let data = FileManager.default.contents(atPath: file), data.count < 16 * 1024 * 1024, !data.contains(0) else {
                cache[file] = []
                return []
            }
            // Split on bytes: in a String, "\r\n" is one Character and never equals "\n".
            let lines = Array(data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
                String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
            }
            cache[file] = lines
            return lines
        }
        guard number >= 1, number <= lines.count else { return nil }
        let line = lines[number - 1]
        return line.count > 400 ? String(line.prefix(400)) : line
    }
}
