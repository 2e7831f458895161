import Foundation

/// Check results the site shows beside the spec (`flowspec build --results report.json`): a
/// verdict per step and per token-rule case, with the evidence that supports it.
///
/// This is the site's input format, deliberately small and independent of the checker's report
/// format; the checker converts its report into this (or writes it directly). The site never
/// computes verdicts itself.
public struct SiteResults: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable {
        case pass
        case fail
        /// The step or case cannot be run by the checker (UI-only steps): never shown as passed.
        case notExecutable = "not-executable"
        /// An informational case: its outcome is reported, it neither passes nor fails.
        case info
        /// The backend refused, but for a reason that proves nothing about the rule: fails the run.
        case inconclusive
        /// Not run because an earlier step failed (`blockedAt` says which): never shown as passed.
        case notReached = "not-reached"

        /// The mark a chip shows beside the colour: never colour alone.
        public var icon: String {
            switch self {
            case .pass: "✓"
            case .fail: "✗"
            case .inconclusive: "?"
            case .notExecutable, .notReached: "–"
            case .info: "i"
            }
        }
    }

    /// The check item a verdict comes from (`flow/rule/CASE`, `flow/path-N`), so the page can
    /// link evidence to the case or step that showed it.
    public struct ItemRef: Codable, Sendable, Hashable {
        public var id: String
        public var rule: String?
        public var caseID: String?
        /// The step the item failed at, when it failed at one.
        public var step: Int?

        public init(id: String, rule: String? = nil, caseID: String? = nil, step: Int? = nil) {
            self.id = id
            self.rule = rule
            self.caseID = caseID
            self.step = step
        }

        enum CodingKeys: String, CodingKey {
            case id, rule
            case caseID = "case"
            case step
        }
    }

    /// Counts per verdict over a flow's check items (scenarios and token-case variants): the
    /// `summary` of the JSON report, by the same definitions (FlowCheck's `Summary`).
    public struct Counts: Codable, Sendable, Hashable {
        public var total: Int
        public var pass: Int
        public var fail: Int
        public var error: Int
        public var notExecutable: Int
        public var info: Int
        public var inconclusive: Int

        public init(total: Int, pass: Int, fail: Int, error: Int, notExecutable: Int, info: Int, inconclusive: Int) {
            self.total = total
            self.pass = pass
            self.fail = fail
            self.error = error
            self.notExecutable = notExecutable
            self.info = info
            self.inconclusive = inconclusive
        }

        /// Failed, errored or inconclusive items: the run fails.
        public var failing: Int { fail + error + inconclusive }
    }

    /// Where the results come from: shown on every page that has results.
    public struct Provenance: Codable, Sendable, Hashable {
        /// When the run started (ISO 8601, as the report says).
        public var startedAt: String?
        /// The backend checked (its URL, or "embedded mock backend").
        public var backend: String?
        /// The flowspec version that ran the check.
        public var toolVersion: String?

        public init(startedAt: String? = nil, backend: String? = nil, toolVersion: String? = nil) {
            self.startedAt = startedAt
            self.backend = backend
            self.toolVersion = toolVersion
        }
    }

    public struct Verdict: Codable, Sendable, Hashable {
        public var status: Status
        /// What was observed (status code, the assertion that failed, the token used…).
        public var evidence: String?
        /// `evidence` as a checker sentence: its `MessageKey` raw value and the values it
        /// quotes. The page says it in its language (label `message_<key>`), or shows
        /// `evidence` when the key has no label (an old report, an unknown key).
        public var evidenceKey: String?
        public var evidenceArgs: [String: String]?
        /// The check item that showed it.
        public var item: ItemRef?
        /// For `notReached`: the step that failed first on the way.
        public var blockedAt: Int?

        public init(
            status: Status, evidence: String? = nil, item: ItemRef? = nil, blockedAt: Int? = nil,
            evidenceKey: String? = nil, evidenceArgs: [String: String]? = nil
        ) {
            self.status = status
            self.evidence = evidence
            self.evidenceKey = evidenceKey
            self.evidenceArgs = evidenceArgs
            self.item = item
            self.blockedAt = blockedAt
        }
    }

    public struct StepVerdict: Codable, Sendable, Hashable {
        public var step: Int
        public var verdict: Verdict

        public init(step: Int, verdict: Verdict) {
            self.step = step
            self.verdict = verdict
        }
    }

    public struct CaseVerdict: Codable, Sendable, Hashable {
        /// The token rule id (`signature`, `audience`…) as written in the spec.
        public var rule: String
        /// The case id from `TokenCase.catalogue` (`P1`, `S3`…).
        public var caseID: String
        public var verdict: Verdict

        public init(rule: String, caseID: String, verdict: Verdict) {
            self.rule = rule
            self.caseID = caseID
            self.verdict = verdict
        }

        enum CodingKeys: String, CodingKey {
            case rule
            case caseID = "case"
            case verdict
        }
    }

    public struct FlowResult: Codable, Sendable, Hashable {
        public var flow: String
        public var steps: [StepVerdict]
        public var cases: [CaseVerdict]
        /// The report's counts for this flow's items; nil in a hand-written file (no counts shown).
        public var summary: Counts?

        public init(flow: String, steps: [StepVerdict] = [], cases: [CaseVerdict] = [], summary: Counts? = nil) {
            self.flow = flow
            self.steps = steps
            self.cases = cases
            self.summary = summary
        }

        public func verdict(step: Int) -> Verdict? { steps.first { $0.step == step }?.verdict }
        public func verdict(rule: String, caseID: String) -> Verdict? {
            cases.first { $0.rule == rule && $0.caseID == caseID }?.verdict
        }
    }

    /// What was checked, shown on each page ("staging, build 1432"); the report supplies it, the
    /// site adds no timestamps of its own.
    public var label: String?
    public var flows: [FlowResult]
    /// The report's counts over every flow, and where the results come from.
    public var summary: Counts?
    public var provenance: Provenance?

    public init(label: String? = nil, flows: [FlowResult], summary: Counts? = nil, provenance: Provenance? = nil) {
        self.label = label
        self.flows = flows
        self.summary = summary
        self.provenance = provenance
    }

    public func result(for flowID: String) -> FlowResult? { flows.first { $0.flow == flowID } }

    /// Reads the JSON form (the Codable shape of this type).
    public static func load(path: String) throws -> SiteResults {
        let data = try Data(FileSystem.read(path))
        return try JSONDecoder().decode(SiteResults.self, from: data)
    }

    /// Stable fingerprint of one flow's results, for the page cache key.
    func fingerprint(for flowID: String) -> String {
        guard let result = result(for: flowID) else { return "-" }
        return (label ?? "") + "|" + Self.fingerprint(result) + "|" + Self.fingerprint(provenance)
    }

    /// Fingerprint of everything: the index shows every flow's status and the totals.
    var fingerprint: String { Self.fingerprint(self) }

    private static func fingerprint(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data()
        return ContentHash.of([UInt8](data)).description
    }
}
