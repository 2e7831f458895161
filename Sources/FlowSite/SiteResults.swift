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
    }

    public struct Verdict: Codable, Sendable, Hashable {
        public var status: Status
        /// What was observed (status code, the assertion that failed, the token used…).
        public var evidence: String?

        public init(status: Status, evidence: String? = nil) {
            self.status = status
            self.evidence = evidence
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

        public init(flow: String, steps: [StepVerdict] = [], cases: [CaseVerdict] = []) {
            self.flow = flow
            self.steps = steps
            self.cases = cases
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

    public init(label: String? = nil, flows: [FlowResult]) {
        self.label = label
        self.flows = flows
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(result)) ?? Data()
        return (label ?? "") + "|" + ContentHash.of([UInt8](data)).description
    }
}
