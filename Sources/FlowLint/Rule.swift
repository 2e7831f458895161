import FlowModel
import FlowOpenAPI
import FlowParser

/// What a rule sees of one flow: the flow and its state machine, built once.
public struct RuleContext: Sendable {
    public let flow: Flow
    public let machine: StateMachine
    /// The provider profiles the run knows (built-ins and the project's own).
    public let providers: ProviderCatalog
    /// The flow's `openapi:` description, loaded once per file for the run; nil when the flow
    /// names none.
    public let openAPI: Result<APIDescription, APIDescriptionProblem>?

    public init(flow: Flow, providers: ProviderCatalog = .builtIn, openAPI: Result<APIDescription, APIDescriptionProblem>? = nil) {
        self.flow = flow
        self.machine = StateMachine(flow: flow)
        self.providers = providers
        self.openAPI = openAPI
    }
}

/// A lint rule over one flow. Each rule lives in its own file with its messages beside it.
protocol FlowRule: Sendable {
    /// Codes this rule can emit, for documentation and tests.
    static var codes: [DiagnosticCode] { get }
    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic])
}

/// A lint rule over all the flows of a run (ids, translations).
protocol CorpusRule: Sendable {
    static var codes: [DiagnosticCode] { get }
    func check(_ corpus: Corpus, into diagnostics: inout [Diagnostic])
}

extension Diagnostic {
    static func error(_ code: DiagnosticCode, _ location: SourceLocation, _ message: String, hint: String? = nil,
                      related: [RelatedLocation] = []) -> Diagnostic {
        Diagnostic(code, severity: .error, location: location, message: message, hint: hint, related: related)
    }

    static func warning(_ code: DiagnosticCode, _ location: SourceLocation, _ message: String, hint: String? = nil,
                        related: [RelatedLocation] = []) -> Diagnostic {
        Diagnostic(code, severity: .warning, location: location, message: message, hint: hint, related: related)
    }
}

/// A word within edit distance 2, for "did you mean" hints.
func suggestion(for word: String, among candidates: [String]) -> String? {
    Suggestion.closest(to: word, among: candidates)
}
