import FlowCheck
import FlowSite
import Foundation

/// What `flowspec build --results FILE` reads: the JSON report of `flowspec check` (what CI
/// keeps) or the site's own SiteResults format, told apart by their keys.
enum ResultsInput {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    static func load(path: String) throws -> SiteResults {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw Error(description: "cannot read the file (\(error.localizedDescription))") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Error(description: "not a JSON object: expected the JSON report of `flowspec check` or a SiteResults file (docs/site.md)")
        }
        do {
            if object["results"] != nil, object["schemaVersion"] != nil {
                return SiteResults(report: try JSONDecoder().decode(CheckReport.self, from: data))
            }
            return try JSONDecoder().decode(SiteResults.self, from: data)
        } catch let error as DecodingError {
            throw Error(description: describe(error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing `\(key.stringValue)` at \(path(context).isEmpty ? "the top" : path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context).isEmpty ? "the top" : path(context))"
        @unknown default: return "\(error)"
        }
    }
}

/// The checker's verdict (inside `SiteResults`, `Verdict` is the site's own).
private typealias CheckVerdict = Verdict

extension SiteResults {
    /// The site's view of a check report: one verdict per step (over every scenario and token
    /// case that reached it) and one per token-rule case (over its variants). A failure anywhere
    /// wins, with its evidence and the item that showed it; then a pass; a step no item could
    /// execute stays not executable. Deterministic: items are read in report order.
    init(report: CheckReport) {
        var order: [String] = []
        var steps: [String: [Int: Verdict]] = [:]
        var stepOrder: [String: [Int]] = [:]
        var cases: [String: [String: (rule: String, caseID: String, verdict: Verdict)]] = [:]
        var caseOrder: [String: [String]] = [:]

        func merge(_ old: Verdict?, _ new: Verdict) -> Verdict {
            guard let old else { return new }
            func rank(_ status: Status) -> Int {
                switch status {
                case .fail: 3
                case .pass: 2
                case .info: 1
                case .notExecutable: 0
                }
            }
            return rank(new.status) > rank(old.status) ? new : old
        }

        for item in report.results {
            if steps[item.flowID] == nil {
                order.append(item.flowID)
                steps[item.flowID] = [:]
            }
            for step in item.steps {
                guard let status = Self.status(step.verdict) else { continue }
                let evidence = status == .fail ? "\(item.id): " + (step.message ?? item.message ?? "failed") : step.message
                if steps[item.flowID]?[step.step] == nil { stepOrder[item.flowID, default: []].append(step.step) }
                steps[item.flowID]![step.step] = merge(steps[item.flowID]![step.step], Verdict(status: status, evidence: evidence))
            }
            if let tokenCase = item.tokenCase, let status = Self.status(item.verdict) {
                let key = tokenCase.rule + "\u{1F}" + tokenCase.caseID
                let evidence = status == .fail ? "\(item.id): " + (item.message ?? "failed") : item.message
                var flowCases = cases[item.flowID] ?? [:]
                if flowCases[key] == nil { caseOrder[item.flowID, default: []].append(key) }
                let merged = merge(flowCases[key]?.verdict, Verdict(status: status, evidence: evidence))
                flowCases[key] = (tokenCase.rule, tokenCase.caseID, merged)
                cases[item.flowID] = flowCases
            }
        }
        let backend = report.backend.embedded ? "embedded mock backend" : report.backend.url
        let defects = report.backend.defects.isEmpty ? "" : ", defects: " + report.backend.defects.joined(separator: ", ")
        self.init(
            label: "flowspec check, \(backend)\(defects)",
            flows: order.map { flow in
                FlowResult(
                    flow: flow,
                    steps: (stepOrder[flow] ?? []).sorted().map { StepVerdict(step: $0, verdict: steps[flow]![$0]!) },
                    cases: (caseOrder[flow] ?? []).map { key in
                        let entry = cases[flow]![key]!
                        return CaseVerdict(rule: entry.rule, caseID: entry.caseID, verdict: entry.verdict)
                    }
                )
            }
        )
    }

    /// A check verdict as the site shows it; nil for steps skipped after a failure.
    private static func status(_ verdict: CheckVerdict) -> Status? {
        switch verdict {
        case .pass: .pass
        // Inconclusive: the run fails and nothing was proven; the evidence text says which (issue 13 gives it its own look).
        case .fail, .error, .inconclusive: .fail
        case .notExecutable: .notExecutable
        case .info: .info
        case .skipped: nil
        }
    }
}
