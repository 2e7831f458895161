import FlowModel

/// `lint --format github`: one GitHub Actions workflow command per diagnostic
/// (`::error file=flows/a.md,line=3,col=5,title=FS202 …::message`), which the job page shows
/// as an annotation on that line of the spec. Values are escaped as GitHub's toolkit does
/// (`escapeData`, `escapeProperty` in @actions/core): `%`, CR and LF in the message, and `:`
/// and `,` too in properties, so nothing a spec says can end the command early or start
/// another one. Text from a spec is first made terminal-safe, as in the text format.
public enum GitHubAnnotations {
    public static func render(_ diagnostics: [Diagnostic]) -> String {
        var out = ""
        for diagnostic in diagnostics {
            let command: String
            switch diagnostic.severity {
            case .error: command = "error"
            case .warning: command = "warning"
            case .note: command = "notice"
            }
            var properties = [
                ("file", diagnostic.location.file),
                ("line", String(diagnostic.location.line)),
                ("col", String(diagnostic.location.column)),
            ]
            if let end = diagnostic.end, end.file == diagnostic.location.file {
                properties += [("endLine", String(end.line)), ("endColumn", String(end.column))]
            }
            properties.append(("title", "\(diagnostic.code) \(diagnostic.kind?.title ?? diagnostic.code)"))
            var lines = [diagnostic.message]
            if let hint = diagnostic.hint { lines.append("hint: \(hint)") }
            for related in diagnostic.related { lines.append("note: \(related.location): \(related.message)") }
            let message = lines.map(TerminalText.escaped).joined(separator: "\n")
            let rendered = properties.map { "\($0.0)=\(escapeProperty(TerminalText.escaped($0.1)))" }.joined(separator: ",")
            out += "::\(command) \(rendered)::\(escapeData(message))\n"
        }
        return out
    }

    /// A command's message: `%`, CR and LF percent-encoded.
    public static func escapeData(_ text: String) -> String { percentEncoded(text, ["%", "\r", "\n"]) }

    /// A command's property value: as data, plus `:` and `,`.
    public static func escapeProperty(_ text: String) -> String { percentEncoded(text, ["%", "\r", "\n", ":", ","]) }

    /// Scalar by scalar (a String's "\r\n" is one Character, so Character replacement would
    /// miss its LF).
    private static func percentEncoded(_ text: String, _ set: Set<Unicode.Scalar>) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if set.contains(scalar) {
                out += "%" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
