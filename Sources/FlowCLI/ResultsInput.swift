import ArgumentParser
import FlowCheck
import FlowModel
import FlowSite
import Foundation

/// What `flowspec build --results FILE` reads: the JSON report of `flowspec check` (what CI
/// keeps) or the site's own SiteResults format, told apart by their keys.
enum ResultsInput {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// `--results FILE` of `build` and `serve`: nil without the option; an unreadable file is
    /// reported and ends the command with the bad-input status.
    static func option(_ path: String?) throws -> SiteResults? {
        guard let path else { return nil }
        do {
            return try load(path: path)
        } catch {
            Terminal.writeError("error: cannot read results \(path): \(error)\n")
            throw ExitCode(CommandExit.badInput)
        }
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
    /// case that reached it) and one per token-rule case (over its variants), with the item that
    /// showed it; the report's own counts per flow and overall (FlowCheck's `Summary`, so the
    /// page says what the JSON and JUnit reports say); where the results come from.
    /// Deterministic: items are read in report order.
    init(report: CheckReport) {
        var order: [String] = []
        var steps: [String: [Int: Verdict]] = [:]
        var cases: [String: [String: (rule: String, caseID: String, verdict: Verdict)]] = [:]
        var caseOrder: [String: [String]] = [:]
        for item in report.results {
            if steps[item.flowID] == nil {
                order.append(item.flowID)
                steps[item.flowID] = [:]
            }
            let blockedAt = item.steps.first { $0.verdict.failsRun }?.step
            let ref = SiteResults.ItemRef(id: item.id, rule: item.tokenCase?.rule, caseID: item.tokenCase?.caseID, step: blockedAt)
            for step in item.steps {
                let said: any KeyedMessageResult = step.message != nil ? step : item
                let verdict = Self.verdict(step.verdict, said: said, item: ref, blockedAt: blockedAt)
                steps[item.flowID]![step.step] = Self.merge(steps[item.flowID]![step.step], verdict, rank: Self.stepRank)
            }
            if let tokenCase = item.tokenCase {
                let key = tokenCase.rule + "\u{1F}" + tokenCase.caseID
                var flowCases = cases[item.flowID] ?? [:]
                if flowCases[key] == nil { caseOrder[item.flowID, default: []].append(key) }
                let verdict = Self.verdict(item.verdict, said: item, item: ref, blockedAt: blockedAt)
                flowCases[key] = (tokenCase.rule, tokenCase.caseID, Self.merge(flowCases[key]?.verdict, verdict, rank: Self.caseRank))
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
                    steps: steps[flow]!.keys.sorted().map { StepVerdict(step: $0, verdict: steps[flow]![$0]!) },
                    cases: (caseOrder[flow] ?? []).map { key in
                        let entry = cases[flow]![key]!
                        return CaseVerdict(rule: entry.rule, caseID: entry.caseID, verdict: entry.verdict)
                    },
                    summary: Counts(Summary(results: report.results.filter { $0.flowID == flow }))
                )
            },
            summary: Counts(report.summary),
            provenance: Provenance(startedAt: report.startedAt, backend: backend + defects, toolVersion: report.tool.version)
        )
    }

    /// A check verdict as the site shows it, its evidence the message of `said` (keyed, so the
    /// page can say it in its language). A step skipped after a failure is "not reached", with
    /// the step that blocked it.
    private static func verdict(_ verdict: CheckVerdict, said: any KeyedMessageResult, item: ItemRef, blockedAt: Int?) -> Verdict {
        var shown = Self.verdict(verdict, message: said.message, item: item, blockedAt: blockedAt)
        if shown.evidence != nil, shown.evidence == said.message {
            shown.evidenceKey = said.messageKey
            shown.evidenceArgs = said.messageArgs
        }
        return shown
    }

    private static func verdict(_ verdict: CheckVerdict, message: String?, item: ItemRef, blockedAt: Int?) -> Verdict {
        switch verdict {
        case .pass: Verdict(status: .pass, evidence: message)
        case .fail, .error: Verdict(status: .fail, evidence: message ?? "failed", item: item)
        case .inconclusive: Verdict(status: .inconclusive, evidence: message, item: item)
        case .notExecutable: Verdict(status: .notExecutable, evidence: message)
        case .info: Verdict(status: .info, evidence: message)
        case .skipped: Verdict(status: .notReached, item: item, blockedAt: blockedAt)
        }
    }

    /// Over the items that reached a step, a failure wins, then a pass; a step no item could
    /// execute stays not executable, and one no item reached says so.
    private static func stepRank(_ status: Status) -> Int {
        switch status {
        case .fail: 5
        case .inconclusive: 4
        case .pass: 3
        case .info: 2
        case .notExecutable: 1
        case .notReached: 0
        }
    }

    /// Over a case's variants, a variant that did not run outranks a pass: a case is passed only
    /// when every variant passed.
    private static func caseRank(_ status: Status) -> Int {
        switch status {
        case .fail: 5
        case .inconclusive: 4
        case .notReached: 3
        case .notExecutable: 2
        case .pass: 1
        case .info: 0
        }
    }

    private static func merge(_ old: Verdict?, _ new: Verdict, rank: (Status) -> Int) -> Verdict {
        guard let old else { return new }
        return rank(new.status) > rank(old.status) ? new : old
    }
}

extension SiteResults.Counts {
    /// The report's counts, field for field.
    init(_ summary: Summary) {
        self.init(
            total: summary.total, pass: summary.pass, fail: summary.fail, error: summary.error,
            notExecutable: summary.notExecutable, info: summary.info, inconclusive: summary.inconclusive
        )
    }
}
