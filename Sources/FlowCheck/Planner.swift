import FlowMocks
import FlowParser
import FlowModel

/// One unit of work of a check run, with a stable id: a scenario (`flow/path-N`) or one
/// variant of a token case (`flow/rule/CASE`, `flow/rule/CASE[i]` when the case has variants).
public struct WorkItem: Sendable, Hashable, Identifiable {
    public enum Payload: Sendable, Hashable {
        case scenario(Scenario)
        case tokenCase(TokenCaseWork)
    }

    public var id: String
    public var flowID: String
    public var payload: Payload

    /// Whether the item changes provider state every other item would see (key rotation, the
    /// token endpoint's behaviour): such items run one at a time, after their provider's other items.
    public var isExclusive: Bool {
        guard case .tokenCase(let work) = payload else { return false }
        return TokenCaseWork.exclusiveCases.contains(work.tokenCase.id)
    }

    public var caseID: String? {
        if case .tokenCase(let work) = payload { return work.tokenCase.id }
        return nil
    }
}

/// A token case to run: the rule it proves, the catalogue case and which variant.
public struct TokenCaseWork: Sendable, Hashable {
    /// One box for all the items of a rule: a run plans an item per variant of every case, and
    /// a rule's texts copied inline into each were most of the plan's memory.
    private var sharedRule: Boxed<TokenRule>
    public var rule: TokenRule { sharedRule.wrappedValue! }
    public var rulePosition: Int
    /// Where the case is in `TokenCase.catalogue`.
    private var casePosition: Int
    public var tokenCase: TokenCase { TokenCase.catalogue[casePosition] }
    /// Index of the variant (`TokenForgery.variants` / `TokenEndpointOverride.variants`), nil
    /// for cases that have a single way to run.
    public var variant: Int?
    public var variantCount: Int
    public var variantDescription: String?
    /// The token mutation this variant mints, for the flow's provider profile (nil for cases
    /// that are not token forgeries: X1–X3, N1, R1).
    public var forgery: TokenForgery?

    /// `rule`: shared by the rule's items; `tokenCase`: a case of `TokenCase.catalogue`.
    init(
        rule: Boxed<TokenRule>, rulePosition: Int, tokenCase: TokenCase, variant: Int?, variantCount: Int,
        variantDescription: String?, forgery: TokenForgery?
    ) {
        guard let position = TokenCase.position(of: tokenCase.id) else { preconditionFailure("\(tokenCase.id) is not a case of the catalogue") }
        sharedRule = rule
        self.rulePosition = rulePosition
        casePosition = position
        self.variant = variant
        self.variantCount = variantCount
        self.variantDescription = variantDescription
        self.forgery = forgery
    }

    /// Cases that mutate provider-wide state.
    static let exclusiveCases: Set<String> = ["P5", "P6", "S8", "X1", "X2", "X3"]

    /// How a case's variants are enumerated for a provider profile and a nonce transform: token
    /// forgeries, token-endpoint overrides, or a single honest run (N1 and R1 are driven with
    /// honest tokens). Empty when the case does not apply to this provider or flow.
    static func variants(of caseID: String, profile: ProviderProfile?, nonce: NonceTransform, rule: TokenRuleKind? = nil) -> [(description: String, forgery: TokenForgery?)] {
        guard let profile else { return [] }
        let overrides = TokenEndpointOverride.variants(for: caseID)
        if !overrides.isEmpty { return overrides.map { ($0.description, nil) } }
        switch caseID {
        case "N1", "R1":
            guard let tokenCase = TokenCase.named(caseID), tokenCase.applies(to: profile, nonce: nonce) else { return [] }
            return caseID == "N1"
                ? NotificationEvent.Kind.allCases.map { ("\($0.rawValue) notification, then the same jti again", nil) }
                : [(tokenCase.title, nil)]
        default:
            return TokenForgery.variants(for: caseID, profile: profile, nonce: nonce, rule: rule).map { ($0.description, $0.forgery) }
        }
    }
}

/// Turns flows into the deterministic list of work items, filters them (`--flow`, `--case`)
/// and slices them (`--shard I/N`).
public struct Planner: Sendable {
    public var flowFilter: [String]
    public var caseFilter: [String]
    public var shard: Shard?
    /// The provider profiles the flows name (token cases are parameterised by them).
    public var providers: ProviderCatalog

    public init(flowFilter: [String] = [], caseFilter: [String] = [], shard: Shard? = nil, providers: ProviderCatalog = .builtIn) {
        self.flowFilter = flowFilter
        self.caseFilter = caseFilter
        self.shard = shard
        self.providers = providers
    }

    /// Every item of every flow, in report order (flows by id).
    public static func allItems(flows: [Flow], providers: ProviderCatalog = .builtIn) -> [WorkItem] {
        var items: [WorkItem] = []
        for flow in flows.sorted(by: { $0.id < $1.id }) {
            let machine = StateMachine(flow: flow)
            for scenario in machine.scenarios(flowID: flow.id) {
                items.append(WorkItem(id: scenario.id, flowID: flow.id, payload: .scenario(scenario)))
            }
            let profile = providers.resolvedProfile(for: flow)
            let nonce = providers.nonceTransform(for: flow)
            for (position, rule) in flow.tokenRules.enumerated() {
                let shared = Boxed(wrappedValue: rule)
                for tokenCase in rule.cases {
                    let variants = TokenCaseWork.variants(of: tokenCase.id, profile: profile, nonce: nonce, rule: rule.kind)
                    for (index, variant) in variants.enumerated() {
                        let multiple = variants.count > 1
                        let id = "\(flow.id)/\(rule.id)/\(tokenCase.id)" + (multiple ? "[\(index)]" : "")
                        let work = TokenCaseWork(
                            rule: shared, rulePosition: position, tokenCase: tokenCase,
                            variant: multiple ? index : nil, variantCount: variants.count,
                            variantDescription: variant.description, forgery: variant.forgery)
                        items.append(WorkItem(id: id, flowID: flow.id, payload: .tokenCase(work)))
                    }
                }
            }
        }
        return items
    }

    /// The items this run executes: the filtered items, plus the baseline (`flow/rule/P1`) of
    /// every rule whose reject cases the filter keeps, so `--case C12` judges them as a full run
    /// does (`BaselineGate`); then this shard's slice. Shards stay a partition: a rule's
    /// baseline may run in another shard, and `--merge` applies the gate over all of them.
    public func plan(flows: [Flow]) -> [WorkItem] {
        let all = Self.allItems(flows: flows, providers: providers)
        var items = all
        if !flowFilter.isEmpty {
            items = items.filter { flowFilter.contains($0.flowID) }
        }
        if !caseFilter.isEmpty {
            items = items.filter { item in caseFilter.contains { Self.matches(item, filter: $0) } }
            var planned = Set(items.map(\.id))
            for item in items {
                guard case .tokenCase(let work) = item.payload, work.tokenCase.expectation == .reject else { continue }
                planned.insert(Self.baselineID(flowID: item.flowID, rule: work.rule.id))
            }
            items = all.filter { planned.contains($0.id) }
        }
        if let shard {
            items = Self.slice(items, shard: shard)
        }
        return items
    }

    /// The id of the honest run (P1) of a rule: its reject cases prove something only if it passes.
    static func baselineID(flowID: String, rule: String) -> String { "\(flowID)/\(rule)/P1" }

    /// `--case` accepts a whole id (`flow/path-2`, `flow/nonce/C12`), an id without its variant
    /// (`flow/algorithm/S3`), a rule-less case id (`S3`, `S3[1]`), or `path-2`.
    static func matches(_ item: WorkItem, filter: String) -> Bool {
        if item.id == filter { return true }
        let withoutVariant = item.id.split(separator: "[").first.map(String.init) ?? item.id
        if withoutVariant == filter { return true }
        let parts = item.id.split(separator: "/").map(String.init)
        guard let last = parts.last else { return false }
        if last == filter { return true }
        if let caseID = item.caseID, caseID == filter { return true }
        return false
    }

    /// Deterministic slice: items sorted by id, the i-th (0-based) goes to shard `i mod N + 1`.
    /// Every item lands in exactly one shard, whatever the machine or the run.
    public static func slice(_ items: [WorkItem], shard: Shard) -> [WorkItem] {
        let sortedIDs = items.map(\.id).sorted()
        var position: [String: Int] = [:]
        for (index, id) in sortedIDs.enumerated() { position[id] = index }
        return items.filter { (position[$0.id]! % shard.count) + 1 == shard.index }
    }
}
