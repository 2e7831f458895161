import FlowMocks
import FlowModel
import Foundation

/// Console output of `flowspec check`: a live progress line on a terminal (plain lines
/// otherwise), then a summary per flow, per step and per token rule, and the evidence of the
/// first failure. Everything printed has gone through `Redaction`.
public final class Console: Sendable {
    private let write: @Sendable (String) -> Void
    private let isTTY: Bool
    /// Whether the last thing written was a progress line to redraw over (TTY only).
    private let lastWasProgress = Locked(false)

    public init(isTTY: Bool, write: @escaping @Sendable (String) -> Void) {
        self.isTTY = isTTY
        self.write = write
    }

    /// Standard output; progress redraws in place only when it is a terminal.
    public static func standardOutput() -> Console {
        Console(isTTY: isatty(STDOUT_FILENO) == 1) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    /// One line. Text from specs, backends and providers can hold control sequences (colours,
    /// OSC 8 links, OSC 52 clipboard writes) and bidi overrides: all are shown escaped.
    public func line(_ text: String) {
        let safe = TerminalText.escaped(text)
        lastWasProgress.withLock { progress in
            if progress { write("\r\u{1B}[2K") }
            progress = false
            write(safe + "\n")
        }
    }

    /// One finished item. On a TTY: a redrawn counter, with failures printed as lines; elsewhere
    /// one line per item.
    public func progress(_ result: ItemResult, done: Int, total: Int) {
        let status = TerminalText.escaped("\(result.verdict.symbol) \(result.id) \(result.verdict.rawValue)")
        if isTTY {
            lastWasProgress.withLock { progress in
                write("\r\u{1B}[2K")
                if result.verdict.failsRun { write(status + TerminalText.escaped(Self.explanation(result)) + "\n") }
                write("[\(done)/\(total)] " + TerminalText.escaped(result.id))
                progress = true
            }
        } else {
            line("[\(done)/\(total)] " + status + (result.verdict.failsRun ? Self.explanation(result) : ""))
        }
    }

    /// `: message`, and the root cause when the message does not already say it.
    static func explanation(_ result: ItemResult) -> String {
        var text = result.message.map { ": \($0)" } ?? ""
        if let cause = result.cause, !text.contains(cause) { text += " [cause: \(cause)]" }
        return text
    }

    public func summary(_ report: CheckReport) {
        for text in Self.summaryLines(report) { line(text) }
    }

    static func count(_ headers: some Sequence<ResultHeader>) -> String {
        let s = Summary(headers: headers)
        var parts = ["\(s.pass) passed", "\(s.fail) failed"]
        if s.error > 0 { parts.append("\(s.error) errors") }
        if s.inconclusive > 0 { parts.append("\(s.inconclusive) inconclusive") }
        if s.notExecutable > 0 { parts.append("\(s.notExecutable) not executable") }
        if s.info > 0 { parts.append("\(s.info) informational") }
        return parts.joined(separator: ", ")
    }

    /// Counted from the results' headers; only scenarios (for their steps) and the first
    /// failure are read back.
    static func summaryLines(_ report: CheckReport) -> [String] {
        var lines: [String] = [""]
        let all = report.results.headers
        for run in report.results.flowRuns {
            let headers = all[run]
            lines.append("\(headers.first!.flowID): \(count(headers))")
            let scenarios = run.filter { all[$0].kind == .scenario }
            if !scenarios.isEmpty {
                lines.append("  scenarios: \(count(scenarios.lazy.map { all[$0] }))")
                // Per step: how often it passed, failed, or could not be executed.
                var perStep: [Int: (title: String, verdicts: Set<Verdict>)] = [:]
                for position in scenarios {
                    for step in report.results[position].steps where step.verdict != .skipped {
                        perStep[step.step, default: (step.title, [])].verdicts.insert(step.verdict)
                    }
                }
                for number in perStep.keys.sorted() {
                    let entry = perStep[number]!
                    let verdict: Verdict = entry.verdicts.contains(.fail) ? .fail : entry.verdicts.contains(.error) ? .error
                        : entry.verdicts.contains(.pass) ? .pass : .notExecutable
                    lines.append("    \(verdict.symbol) step \(number) \(entry.title) (\(verdict.rawValue))")
                }
            }
            let cases = headers.filter { $0.kind == .tokenCase }
            let rules = Dictionary(grouping: cases, by: { $0.tokenCase?.rule ?? "?" })
            let ruleOrder = rules.keys.sorted { (rules[$0]!.first?.tokenCase?.rulePosition ?? 0) < (rules[$1]!.first?.tokenCase?.rulePosition ?? 0) }
            for rule in ruleOrder {
                let ruleResults = rules[rule]!
                let failed = ruleResults.filter { $0.verdict.failsRun }.compactMap { $0.tokenCase.map { t in t.caseID + (t.variant.map { "[\($0)]" } ?? "") } }
                lines.append("  rule \(rule): \(count(ruleResults))" + (failed.isEmpty ? "" : " — failing: " + failed.joined(separator: " ")))
            }
        }
        lines.append("")
        lines.append("Total: \(report.summary.total) items: \(count(all))")
        lines += rootCauseLines(all)
        if let position = all.firstIndex(where: { $0.verdict.failsRun }) {
            let first = report.results[position]
            lines.append("")
            lines.append("First failure: \(first.id) — \(first.title)")
            if let message = first.message { lines.append("  \(message)") }
            if let evidence = first.evidence ?? first.steps.first(where: { $0.verdict.failsRun })?.evidence {
                lines += evidenceLines(evidence).map { "  " + $0 }
            }
        }
        return lines
    }

    /// One line per distinct root cause the provider's records showed (most items first): a
    /// misconfigured run says why in one line instead of dozens of "not accepted: 401".
    static func rootCauseLines(_ results: some Sequence<ResultHeader>) -> [String] {
        var counts: [String: (items: Int, inconclusive: Int, first: String)] = [:]
        for result in results where result.verdict.failsRun {
            guard let cause = result.cause else { continue }
            var entry = counts[cause] ?? (0, 0, result.id)
            entry.items += 1
            if result.verdict == .inconclusive { entry.inconclusive += 1 }
            counts[cause] = entry
        }
        let ordered = counts.sorted { $0.value.items != $1.value.items ? $0.value.items > $1.value.items : $0.key < $1.key }
        return ordered.map { cause, entry in
            let inconclusive = entry.inconclusive > 0 ? ", \(entry.inconclusive) of them reject cases left inconclusive" : ""
            return "Root cause: \(cause) (\(entry.items) item\(entry.items == 1 ? "" : "s")\(inconclusive); first \(entry.first))"
        }
    }

    /// Evidence as text: request line, response status and body excerpt, decoded token.
    public static func evidenceLines(_ evidence: Evidence) -> [String] {
        var lines: [String] = []
        if let request = evidence.request {
            lines.append("request:  \(request.requestLine)")
            for header in request.headers { lines.append("          \(header.name): \(header.value)") }
            if let body = request.bodyExcerpt { lines.append("          \(body)") }
        }
        if let response = evidence.response {
            if let status = response.status {
                lines.append("response: \(status) (\(response.bodyBytes) bytes\(response.truncated ? ", cut at the read cap" : ""), \(response.elapsedMS) ms)")
            } else {
                lines.append("response: none — \(response.failure ?? "no answer")")
            }
            if let body = response.bodyExcerpt { lines.append("          \(body)") }
        }
        if let token = evidence.token {
            lines.append("token:    header \(token.header)")
            lines.append("          claims \(token.claims)")
            lines.append("          signature \(token.signature)")
        }
        for record in evidence.providerRequests {
            var line = "provider: \(record.method) \(record.path) → \(record.status)"
            if let error = record.error { line += " \(error)" + (record.errorDescription.map { " (\($0))" } ?? "") }
            if !record.clientSecretViolations.isEmpty { line += " client_secret: " + record.clientSecretViolations.joined(separator: ", ") }
            lines.append(line)
        }
        for note in evidence.notes { lines.append("note:     \(note)") }
        return lines
    }
}
