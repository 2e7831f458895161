import FlowModel

// "Copy as curl" for a step's request: the command a reader can paste, with the flow's example
// values in place of its placeholders and the backend's address left to `$BACKEND`.
extension PageRenderer {
    func curlCommand(_ request: RequestTemplate, flow: Flow) -> String {
        let target = exampleValues(request.target, flow: flow)
        let url = target.hasPrefix("/") ? "\"$BACKEND\"" + Self.shellQuoted(target) : Self.shellQuoted(target)
        var parts = ["curl -X " + Self.shellQuoted(request.method) + " " + url]
        for header in request.headers {
            parts.append("-H " + Self.shellQuoted(header.name + ": " + exampleValues(header.value, flow: flow)))
        }
        if let body = request.body, !body.isEmpty {
            parts.append("--data-raw " + Self.shellQuoted(exampleValues(body, flow: flow)))
        }
        return parts.joined(separator: " \\\n  ")
    }

    /// `{{name}}` replaced by the flow's example value for `name`; unknown names stay as written.
    private func exampleValues(_ text: String, flow: Flow) -> String {
        var out = text
        for variable in flow.variables {
            out = out.replacingOccurrences(of: "{{" + variable.name + "}}", with: variable.value)
            out = out.replacingOccurrences(of: "{{ " + variable.name + " }}", with: variable.value)
        }
        return out
    }

    /// POSIX shell single quotes: nothing inside is interpreted; a quote is closed, escaped, reopened.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
