import FlowModel
import Foundation

/// A Markdown summary for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`, GitLab or Gitea
/// comments): the counts, a table per flow, then every failing, erroneous or inconclusive item
/// with its message, a link to the failing step on the site, and its evidence. Everything a
/// spec or a backend wrote is escaped: it cannot add links, HTML or formatting.
public enum MarkdownReport {
    /// Where `flowspec build` wrote the site, relative to the repository (used when no
    /// `--site-url` is given).
    public static let defaultSiteURL = "site/_build/"

    public static func render(_ report: CheckReport, siteURL: String = defaultSiteURL) -> String {
        var out = ""
        write(report, siteURL: siteURL, into: &out)
        return out
    }

    /// Writes the summary; the failing items are read back one at a time.
    public static func write<Sink: TextSink>(_ report: CheckReport, siteURL: String = defaultSiteURL, into sink: inout Sink) throws(Sink.Failure) {
        let base = siteURL.hasSuffix("/") ? siteURL : siteURL + "/"
        let s = report.summary
        var out = "# flowspec check\n\n"
        let verdict = s.fail + s.error + s.inconclusive == 0 ? "✅ passed" : "❌ failed"
        out += "**\(verdict)**: \(s.pass) passed, \(s.fail) failed, \(s.error) errors, \(s.inconclusive) inconclusive, "
        out += "\(s.notExecutable) not executable, \(s.info) informational (\(s.total) items, \(JUnitReport.seconds(report.durationMS)) s)\n\n"
        let backend = report.backend.embedded ? "the embedded mock backend" : "`" + code(report.backend.url) + "`"
        out += "Backend: \(backend)"
        if !report.backend.defects.isEmpty { out += ", defects: " + report.backend.defects.map { "`\(code($0))`" }.joined(separator: ", ") }
        if let shard = report.shard { out += " · shard \(shard.index)/\(shard.count)" }
        out += " · flowspec \(inline(report.tool.version))\n\n"
        out += "| Flow | Items | Passed | Failed | Errors | Inconclusive | Not executable |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|\n"
        for run in report.results.flowRuns {
            let flowID = report.results.headers[run.lowerBound].flowID
            let summary = Summary(headers: report.results.headers[run])
            let title = report.flows.first { $0.id == flowID }?.title ?? flowID
            out += "| [\(inline(title))](\(link(base + "flows/\(flowID).html"))) | \(summary.total) | \(summary.pass) | \(summary.fail) | \(summary.error) | \(summary.inconclusive) | \(summary.notExecutable) |\n"
        }
        let failing = report.results.headers.indices.filter { report.results.headers[$0].verdict.failsRun }
        if !failing.isEmpty { out += "\n## Failures\n" }
        try sink.write(out)
        for position in failing { try sink.write(failure(report.results[position], base: base)) }
    }

    private static func failure(_ result: ItemResult, base: String) -> String {
        var out = "\n### \(result.verdict.symbol) \(result.verdict.rawValue): `\(code(result.id))` \(inline(result.title))\n\n"
        if let message = result.message { out += inline(message) + "\n\n" }
        if let cause = result.cause { out += "Cause: " + inline(cause) + "\n\n" }
        if let step = result.steps.first(where: \.verdict.failsRun) {
            let page = link(base + "flows/\(result.flowID).html#step-\(step.step)")
            out += "Step [\(step.step). \(inline(step.title))](\(page))"
            if let message = step.message { out += ": " + inline(message) }
            out += "\n\n"
        }
        if let evidence = result.evidence {
            let lines = Console.evidenceLines(evidence).map(TerminalText.escaped)
            let body = lines.joined(separator: "\n")
            out += "<details><summary>Evidence</summary>\n\n" + fenced(body) + "\n</details>\n"
        }
        return out
    }

    /// Inline text: Markdown punctuation backslash-escaped, HTML's `<`, `>`, `&` as entities,
    /// control and invisible characters shown escaped, on one line.
    static func inline(_ text: String) -> String {
        var out = ""
        for character in TerminalText.escaped(text) {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\\", "`", "*", "_", "[", "]", "(", ")", "#", "|", "!", "~", "{", "}", "+", "-", ".":
                out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }

    /// Text inside a code span: no backticks (they would close it), one line.
    private static func code(_ text: String) -> String {
        TerminalText.escaped(text).replacingOccurrences(of: "`", with: "'")
    }

    /// A URL for `[text](url)`: spaces, parentheses and angle brackets percent-encoded.
    private static func link(_ url: String) -> String {
        url.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "(", with: "%28")
            .replacingOccurrences(of: ")", with: "%29").replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E")
    }

    /// A fenced code block whose fence is longer than any run of backticks in `body`.
    static func fenced(_ body: String) -> String {
        var longest = 0
        var run = 0
        for character in body {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        return "\(fence)text\n\(body)\n\(fence)\n"
    }
}
