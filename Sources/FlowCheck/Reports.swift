import FlowModel
import Foundation

/// `--report FORMAT:PATH`.
public struct ReportTarget: Sendable, Hashable, CustomStringConvertible {
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case json
        case junit
        /// A job summary (docs/check.md, "Reports"); links to the site's steps.
        case markdown
    }

    public var format: Format
    public var path: String
    /// Where the site is published, for the Markdown report's links (`--site-url`).
    public var siteURL: String

    public init(format: Format, path: String, siteURL: String = MarkdownReport.defaultSiteURL) {
        self.format = format
        self.path = path
        self.siteURL = siteURL
    }

    /// Parses `json:out/check.json`, `junit:out/junit.xml` or `markdown:summary.md`.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":"), let format = Format(rawValue: String(text[..<colon]).lowercased()) else { return nil }
        let path = String(text[text.index(after: colon)...])
        guard !path.isEmpty else { return nil }
        self.init(format: format, path: path)
    }

    public var description: String { "\(format.rawValue):\(path)" }
}

public enum ReportError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case incompatible(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): not a flowspec check report (\(why))"
        case .incompatible(let why): "reports cannot be merged: \(why)"
        }
    }
}

/// The JSON report (schema: docs/schemas/check-report.schema.json).
public enum JSONReport {
    /// How the report is encoded, and how a run's `ResultLog` stores each result.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func encode(_ report: CheckReport) throws -> Data {
        var text = ""
        try write(report, into: &text)
        return Data(text.utf8)
    }

    /// Writes the report one result at a time, each read back from the run's log (its stored
    /// bytes copied, not decoded): the same bytes `JSONEncoder` gives for the whole report, in
    /// memory the size of one result.
    public static func write(_ report: CheckReport, into sink: inout some TextSink) throws {
        var frame = report
        frame.results = ReportResults([])
        let text = String(decoding: try encoder.encode(frame), as: UTF8.self) + "\n"
        let empty = "\n  \"results\" : [\n\n  ]"
        guard !report.results.isEmpty, let slot = text.range(of: empty) else {
            try sink.write(text)
            return
        }
        try sink.write(String(text[..<slot.lowerBound]) + "\n  \"results\" : [\n")
        let encoder = encoder
        for position in report.results.indices {
            if position > 0 { try sink.write(",\n") }
            let json = try report.results.storedJSON(at: position) ?? encoder.encode(report.results[position])
            try writeIndented(json, into: &sink)
        }
        try sink.write("\n  ]" + String(text[slot.upperBound...]))
    }

    /// A result encoded at the top level, as it sits in the `results` array: every line that
    /// is not empty indented by four spaces (strings hold no raw newline).
    private static func writeIndented(_ json: Data, into sink: inout some TextSink) throws {
        try json.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                if end > start {
                    try sink.write("    ")
                    try sink.write(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                }
                if end < bytes.count { try sink.write("\n") }
                start = end + 1
            }
        }
    }

    public static func decode(_ data: Data, path: String = "report") throws -> CheckReport {
        do {
            return try JSONDecoder().decode(CheckReport.self, from: data)
        } catch {
            throw ReportError.unreadable(path, String(describing: error).prefix(200).description)
        }
    }

    /// Merges shard reports into one, ordered as an unsharded run would be. Results with the
    /// same id (a shard run twice, a baseline planned in several shards) keep the last one
    /// given. The baseline gate runs again over the whole: a rule's baseline may have failed
    /// in another shard than its reject cases.
    public static func merge(_ reports: [CheckReport]) throws -> CheckReport {
        guard let first = reports.first else { throw ReportError.incompatible("no reports given") }
        let versions = Set(reports.map(\.schemaVersion))
        guard versions.count == 1 else { throw ReportError.incompatible("schema versions \(versions.sorted())") }
        var byID: [String: ItemResult] = [:]
        for report in reports { for result in report.results { byID[result.id] = result } }
        var flows: [String: CheckReport.FlowInfo] = [:]
        for report in reports { for flow in report.flows { flows[flow.id] = flow } }
        let started = reports.map(\.startedAt).min() ?? first.startedAt
        return CheckReport(
            schemaVersion: first.schemaVersion, tool: first.tool, startedAt: started,
            durationMS: reports.map(\.durationMS).max() ?? 0, backend: first.backend, shard: nil,
            flows: Array(flows.values), results: BaselineGate.apply(Array(byID.values)))
    }
}

/// JUnit XML in the common (Jenkins junit-10.xsd) shape: one `<testsuite>` per flow, one
/// `<testcase>` per scenario or token case. Failures carry the message and the evidence;
/// not-executable items are `<skipped>`; informational cases pass with their outcome in
/// `<system-out>`.
public enum JUnitReport {
    public static func render(_ report: CheckReport) -> String {
        var out = ""
        write(report, into: &out)
        return out
    }

    /// Writes the report flow by flow, reading back one result at a time.
    public static func write<Sink: TextSink>(_ report: CheckReport, into sink: inout Sink) throws(Sink.Failure) {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let s = report.summary
        out += "<testsuites name=\"flowspec check\" tests=\"\(s.total)\" failures=\"\(s.fail)\" errors=\"\(s.error + s.inconclusive)\" time=\"\(seconds(report.durationMS))\">\n"
        for (index, run) in report.results.flowRuns.enumerated() {
            let flowID = report.results.headers[run.lowerBound].flowID
            let headers = report.results.headers[run]
            let summary = Summary(headers: headers)
            let file = report.flows.first { $0.id == flowID }?.file
            let time = headers.reduce(0) { $0 + $1.durationMS }
            out += "  <testsuite name=\"\(escape(flowID))\" tests=\"\(summary.total)\" failures=\"\(summary.fail)\" errors=\"\(summary.error + summary.inconclusive)\" skipped=\"\(summary.notExecutable)\" time=\"\(seconds(time))\" timestamp=\"\(escape(timestamp(report.startedAt)))\" hostname=\"localhost\" id=\"\(index)\" package=\"flowspec\">\n"
            out += "    <properties>\n"
            out += "      <property name=\"backend\" value=\"\(escape(report.backend.url))\"/>\n"
            if let file { out += "      <property name=\"file\" value=\"\(escape(file))\"/>\n" }
            out += "    </properties>\n"
            for position in run {
                try sink.write(out)
                out = ""
                let result = report.results[position]
                let classname = result.kind == .scenario ? "\(flowID).scenarios" : "\(flowID).\(result.tokenCase?.rule ?? "tokens")"
                out += "    <testcase name=\"\(escape(result.id + " " + result.title))\" classname=\"\(escape(classname))\" time=\"\(seconds(result.durationMS))\""
                let detail = details(result)
                switch result.verdict {
                case .pass:
                    out += ">\n      <system-out>\(escape(detail))</system-out>\n    </testcase>\n"
                case .info:
                    out += ">\n      <system-out>\(escape("informational: " + (result.message ?? "") + "\n" + detail))</system-out>\n    </testcase>\n"
                case .notExecutable, .skipped:
                    out += ">\n      <skipped message=\"\(escape(result.message ?? "not executable"))\"/>\n    </testcase>\n"
                case .fail:
                    out += ">\n      <failure message=\"\(escape(result.message ?? "failed"))\" type=\"fail\">\(escape(detail))</failure>\n    </testcase>\n"
                case .error:
                    out += ">\n      <error message=\"\(escape(result.message ?? "error"))\" type=\"error\">\(escape(detail))</error>\n    </testcase>\n"
                case .inconclusive:
                    // Not a failure of the backend's check, not a pass: nothing was proven.
                    out += ">\n      <error message=\"\(escape(result.message ?? "inconclusive"))\" type=\"inconclusive\">\(escape(detail))</error>\n    </testcase>\n"
                }
            }
            out += "    <system-out></system-out>\n    <system-err></system-err>\n"
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        try sink.write(out)
    }

    /// Step lines and the first failure's evidence, as plain text.
    static func details(_ result: ItemResult) -> String {
        var lines: [String] = []
        for step in result.steps {
            var line = "\(step.verdict.symbol) step \(step.step) [\(step.kind)] \(step.title)"
            if let branch = step.branch { line += " — \(branch)" }
            if let message = step.message { line += ": \(message)" }
            lines.append(line)
        }
        if let evidence = result.evidence {
            lines.append("")
            lines += Console.evidenceLines(evidence)
        }
        return lines.joined(separator: "\n")
    }

    static func seconds(_ ms: Int) -> String {
        String(format: "%.3f", Double(ms) / 1000)
    }

    /// xs:dateTime without a zone, as the XSD's ISO8601_DATETIME_PATTERN wants.
    static func timestamp(_ iso: String) -> String {
        var value = iso
        if value.hasSuffix("Z") { value.removeLast() }
        if let dot = value.firstIndex(of: ".") { value = String(value[..<dot]) }
        return value
    }

    /// XML 1.0 text/attribute escaping; characters XML cannot carry become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            default:
                let v = scalar.value
                if v < 0x20 || (0xD800...0xDFFF).contains(v) || v == 0xFFFE || v == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

extension CheckReport {
    /// Writes the report in each requested format, each file whole or not at all
    /// (`AtomicFileWriter`), streamed one result at a time.
    public func write(to targets: [ReportTarget]) throws {
        for target in targets {
            var file = try AtomicFileWriter(path: target.path)
            switch target.format {
            case .json: try JSONReport.write(self, into: &file)
            case .junit: try JUnitReport.write(self, into: &file)
            case .markdown: try MarkdownReport.write(self, siteURL: target.siteURL, into: &file)
            }
            try file.commit()
        }
    }
}

extension ReportResults {
    /// The positions of each flow's results, in report order (results are ordered by flow
    /// first, so each flow's are one run).
    var flowRuns: [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        for position in headers.indices.dropFirst() where headers[position].flowID != headers[position - 1].flowID {
            runs.append(start..<position)
            start = position
        }
        if !headers.isEmpty { runs.append(start..<headers.count) }
        return runs
    }
}
