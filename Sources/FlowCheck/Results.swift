import FlowModel

/// The verdict of a check item or of one step of it.
///
/// `notExecutable` is never a pass: the checker could not produce a verdict (a UI-only step, a
/// branch it cannot drive). `info` is an informational case (C8): its outcome is reported and
/// never fails the run. `skipped` is only used for steps after a failing step.
public enum Verdict: String, Sendable, Codable, Hashable, CaseIterable {
    case pass
    case fail
    case error
    case notExecutable = "not-executable"
    case info
    case skipped
    /// A reject case the backend did refuse, but for a reason that proves nothing about the
    /// rule: the honest token of the same rule was refused too, or the provider refused the
    /// backend's own call (wrong credentials, redirect_uri) first. Fails the run.
    case inconclusive

    /// Whether this verdict makes the run fail (exit 1).
    public var failsRun: Bool { self == .fail || self == .error || self == .inconclusive }

    public var symbol: String {
        switch self {
        case .pass: "✓"
        case .fail: "✗"
        case .error: "!"
        case .notExecutable: "–"
        case .info: "i"
        case .skipped: "·"
        case .inconclusive: "?"
        }
    }
}

/// What one run of the checker found: the unit of the JSON report (schema in
/// docs/schemas/check-report.schema.json, described in docs/check.md).
public struct CheckReport: Sendable, Codable, Hashable {
    public var schemaVersion: Int
    public var tool: Tool
    public var startedAt: String
    public var durationMS: Int
    public var backend: BackendInfo
    /// Present when the run was one shard of several; nil for a merged or unsharded report.
    public var shard: Shard?
    public var flows: [FlowInfo]
    /// Results in report order (`ResultOrder`), independent of scheduling; a run's are read
    /// back from disk one at a time (`ReportResults`).
    public var results: ReportResults
    public var summary: Summary

    public struct Tool: Sendable, Codable, Hashable {
        public var name: String
        public var version: String
        public init(name: String = "flowspec", version: String) {
            self.name = name
            self.version = version
        }
    }

    public struct BackendInfo: Sendable, Codable, Hashable {
        /// The backend's base URL.
        public var url: String
        /// True for the embedded mock backend.
        public var embedded: Bool
        /// Defects injected into the embedded mock backend.
        public var defects: [String]
        public init(url: String, embedded: Bool, defects: [String] = []) {
            self.url = url
            self.embedded = embedded
            self.defects = defects
        }
    }

    public struct FlowInfo: Sendable, Codable, Hashable {
        public var id: String
        public var title: String
        public var file: String
        public init(id: String, title: String, file: String) {
            self.id = id
            self.title = title
            self.file = file
        }
    }

    public init(
        schemaVersion: Int = FlowCheck.reportSchemaVersion, tool: Tool, startedAt: String, durationMS: Int,
        backend: BackendInfo, shard: Shard?, flows: [FlowInfo], results: [ItemResult]
    ) {
        self.init(
            schemaVersion: schemaVersion, tool: tool, startedAt: startedAt, durationMS: durationMS, backend: backend, shard: shard,
            flows: flows, ordered: ReportResults(results.sorted(by: ResultOrder.precedes)))
    }

    /// A report of results already in report order (a run's, from `Checker.run`).
    public init(
        schemaVersion: Int = FlowCheck.reportSchemaVersion, tool: Tool, startedAt: String, durationMS: Int,
        backend: BackendInfo, shard: Shard?, flows: [FlowInfo], ordered results: ReportResults
    ) {
        self.schemaVersion = schemaVersion
        self.tool = tool
        self.startedAt = startedAt
        self.durationMS = durationMS
        self.backend = backend
        self.shard = shard
        self.flows = flows.sorted { $0.id < $1.id }
        self.results = results
        self.summary = Summary(verdicts: results.headers.lazy.map(\.verdict))
    }

    /// Exit code of `flowspec check` for this report: 0 all pass, 1 failures or errors.
    /// (2 bad input and 3 unreachable backend are decided before any result exists.)
    public var exitCode: Int32 { summary.fail + summary.error + summary.inconclusive > 0 ? 1 : 0 }
}

/// Counts per verdict.
public struct Summary: Sendable, Codable, Hashable {
    public var total: Int
    public var pass: Int
    public var fail: Int
    public var error: Int
    public var notExecutable: Int
    public var info: Int
    public var inconclusive: Int

    public init(verdicts: some Sequence<Verdict>) {
        (total, pass, fail, error, notExecutable, info, inconclusive) = (0, 0, 0, 0, 0, 0, 0)
        for verdict in verdicts {
            total += 1
            switch verdict {
            case .pass: pass += 1
            case .fail: fail += 1
            case .error: error += 1
            case .notExecutable: notExecutable += 1
            case .info: info += 1
            case .inconclusive: inconclusive += 1
            case .skipped: break
            }
        }
    }

    public init(results: some Sequence<ItemResult>) { self.init(verdicts: results.lazy.map(\.verdict)) }

    public init(headers: some Sequence<ResultHeader>) { self.init(verdicts: headers.lazy.map(\.verdict)) }

    /// Reports of schema version 1 have no `inconclusive` count: it reads as 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        total = try container.decode(Int.self, forKey: .total)
        pass = try container.decode(Int.self, forKey: .pass)
        fail = try container.decode(Int.self, forKey: .fail)
        error = try container.decode(Int.self, forKey: .error)
        notExecutable = try container.decode(Int.self, forKey: .notExecutable)
        info = try container.decode(Int.self, forKey: .info)
        inconclusive = try container.decodeIfPresent(Int.self, forKey: .inconclusive) ?? 0
    }
}

/// `--shard I/N`: this run executes the I-th of N deterministic slices (1-based).
public struct Shard: Sendable, Codable, Hashable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` with 1 ≤ I ≤ N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              count >= 1, index >= 1, index <= count else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }
}

/// The result of one work item: a scenario (path through a flow) or one variant of a token case.
public struct ItemResult: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable {
        case scenario
        case tokenCase = "token-case"
    }

    /// Stable id: `flow/path-N` or `flow/rule/CASE` (`flow/rule/CASE[i]` for a case with variants).
    public var id: String
    public var flowID: String
    public var kind: Kind
    public var title: String
    public var verdict: Verdict
    /// One line saying why (the first failure, or why it is not executable).
    public var message: String?
    /// The `MessageKey` of `message` and the values it quotes, so the site can say it in the
    /// page's language; absent in reports written before keys existed.
    public var messageKey: String?
    public var messageArgs: [String: String]?
    public var scenario: ScenarioInfo?
    public var tokenCase: TokenCaseInfo?
    public var steps: [StepResult]
    /// Evidence of the first failing step (also kept on that step).
    @Boxed public var evidence: Evidence?
    /// For a failing or inconclusive item: the root cause the provider's records show (the
    /// backend's client authentication refused, a redirect_uri mismatch, no code exchange).
    public var cause: String?
    public var durationMS: Int
    /// The provider requests of a reject case that passed, kept (not reported) in case the
    /// baseline gate turns it inconclusive: then they become its evidence.
    var heldProviderRequests: [ProviderRequestEvidence]?

    enum CodingKeys: String, CodingKey {
        case id, flowID, kind, title, verdict, message, messageKey, messageArgs, scenario, tokenCase, steps, evidence, cause, durationMS
    }

    public init(
        id: String, flowID: String, kind: Kind, title: String, verdict: Verdict, message: String? = nil, keyed: VerdictMessage? = nil,
        scenario: ScenarioInfo? = nil, tokenCase: TokenCaseInfo? = nil, steps: [StepResult] = [],
        evidence: Evidence? = nil, cause: String? = nil, durationMS: Int = 0
    ) {
        self.id = id
        self.flowID = flowID
        self.kind = kind
        self.title = title
        self.verdict = verdict
        self.message = message
        self.scenario = scenario
        self.tokenCase = tokenCase
        self.steps = steps
        self.evidence = evidence
        self.cause = cause
        self.durationMS = durationMS
        if let keyed { keyedMessage = keyed }
    }
}

public struct ScenarioInfo: Sendable, Codable, Hashable {
    /// 1-based index in the flow's scenario list.
    public var index: Int
    /// Steps visited, in order.
    public var path: [Int]
    /// Alternates taken, as "step: label".
    public var choices: [String]
    public var outcome: String

    public init(index: Int, path: [Int], choices: [String], outcome: String) {
        self.index = index
        self.path = path
        self.choices = choices
        self.outcome = outcome
    }
}

public struct TokenCaseInfo: Sendable, Codable, Hashable {
    /// The rule id as written in the token-rules table.
    public var rule: String
    /// Position of the rule in the flow's table (0-based), for ordering.
    public var rulePosition: Int
    /// Case id from token-cases.md (`S3`).
    public var caseID: String
    /// Variant index when the case has several variants.
    public var variant: Int?
    public var variantDescription: String?
    /// `accept`, `reject` or `informational`.
    public var expectation: String
    /// The step that submits the token (`@ N`).
    public var step: Int?
    public var conformanceID: String?

    public init(
        rule: String, rulePosition: Int, caseID: String, variant: Int?, variantDescription: String?,
        expectation: String, step: Int?, conformanceID: String?
    ) {
        self.rule = rule
        self.rulePosition = rulePosition
        self.caseID = caseID
        self.variant = variant
        self.variantDescription = variantDescription
        self.expectation = expectation
        self.step = step
        self.conformanceID = conformanceID
    }
}

/// One step of a scenario (or of the path a token case walks).
public struct StepResult: Sendable, Codable, Hashable {
    public var step: Int
    public var title: String
    /// `StepKind` raw value (`request`, `providerCall`, `ui`…).
    public var kind: String
    /// The alternate taken out of this step, if any.
    public var branch: String?
    public var verdict: Verdict
    public var message: String?
    /// As `ItemResult.messageKey` / `messageArgs`.
    public var messageKey: String?
    public var messageArgs: [String: String]?
    @Boxed public var evidence: Evidence?

    public init(step: Int, title: String, kind: String, branch: String? = nil, verdict: Verdict, message: String? = nil, evidence: Evidence? = nil) {
        self.step = step
        self.title = title
        self.kind = kind
        self.branch = branch
        self.verdict = verdict
        self.message = message
        self.evidence = evidence
    }
}

/// The deterministic order of results: by flow id, scenarios before token cases, scenarios by
/// index, token cases by rule position, catalogue order and variant. The same for a full run
/// and for merged shards.
public enum ResultOrder {
    public static func precedes(_ a: ItemResult, _ b: ItemResult) -> Bool { precedes(a.header, b.header) }

    public static func precedes(_ a: ResultHeader, _ b: ResultHeader) -> Bool {
        key(a).lexicographicallyPrecedes(key(b)) { lhs, rhs in lhs < rhs }
            || (key(a) == key(b) && a.id < b.id)
    }

    static func key(_ r: ResultHeader) -> [SortKey] {
        var key: [SortKey] = [.text(r.flowID)]
        if let index = r.scenarioIndex {
            key += [.number(0), .number(index)]
        } else if let t = r.tokenCase {
            let catalogueIndex = TokenCase.position(of: t.caseID) ?? Int.max
            key += [.number(1), .number(t.rulePosition), .number(catalogueIndex), .number(t.variant ?? -1)]
        } else {
            key += [.number(2)]
        }
        return key
    }

    enum SortKey: Comparable {
        case number(Int)
        case text(String)
    }
}

/// A result whose `message` may carry its `MessageKey` and arguments.
public protocol KeyedMessageResult {
    var message: String? { get set }
    var messageKey: String? { get set }
    var messageArgs: [String: String]? { get set }
}

extension KeyedMessageResult {
    /// The keyed message, when the key is one this version knows. Setting it sets the English
    /// `message` too (the reports' text), so the two never disagree.
    public var keyedMessage: VerdictMessage? {
        get { messageKey.flatMap(MessageKey.init(rawValue:)).map { VerdictMessage($0, messageArgs ?? [:]) } }
        set {
            message = newValue?.english
            messageKey = newValue?.key.rawValue
            messageArgs = newValue.flatMap { $0.args.isEmpty ? nil : $0.args }
        }
    }
}

extension ItemResult: KeyedMessageResult {}
extension StepResult: KeyedMessageResult {}


extension StepResult {
    /// A step result whose message is a keyed sentence.
    public init(step: Int, title: String, kind: String, branch: String? = nil, verdict: Verdict, keyed: VerdictMessage, evidence: Evidence? = nil) {
        self.init(step: step, title: title, kind: kind, branch: branch, verdict: verdict, evidence: evidence)
        keyedMessage = keyed
    }
}
