import FlowModel
import FlowOpenAPI
import FlowParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The result of linting a set of specs: the flows that parsed (in path order) and every
/// finding, sorted for output.
public struct LintRun: Sendable {
    public var flows: [Flow]
    public var diagnostics: [Diagnostic]
    /// Files that were examined, in order.
    public var files: [String]
    /// The provider profiles the specs can name: built-ins and `*.provider.yml` beside them.
    public var providers: ProviderCatalog

    public init(flows: [Flow], diagnostics: [Diagnostic], files: [String], providers: ProviderCatalog = .builtIn) {
        self.flows = flows
        self.diagnostics = diagnostics
        self.files = files
        self.providers = providers
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
    public var hasUnusableInput: Bool { diagnostics.contains { $0.isUnusableInput && $0.severity == .error } }

    /// 0 clean (warnings allowed unless `strict`), 1 errors, 2 unusable input.
    public func exitCode(strict: Bool) -> Int32 {
        if hasUnusableInput { return 2 }
        if hasErrors { return 1 }
        if strict, diagnostics.contains(where: { $0.severity == .warning }) { return 1 }
        return 0
    }
}

/// Parses specs and runs every rule over them. Findings are values; nothing is thrown.
public struct Linter: Sendable {
    static let flowRules: [any FlowRule] = [
        StepNumbersRule(), ActorsRule(), TransitionsRule(), VariablesRule(), ExchangesRule(), AmbiguityRule(), InvisibleTextRule(), TokenRulesRule(), ProviderRule(),
        OpenAPIRule(),
    ]
    static let corpusRules: [any CorpusRule] = [UniqueIDsRule(), TranslationRule()]

    /// Every code any rule or the parser can emit, for the documentation test.
    public static var ruleCodes: [DiagnosticCode] {
        (flowRules.flatMap { type(of: $0).codes } + corpusRules.flatMap { type(of: $0).codes } + [DiagnosticCode.invalidProviderProfile, .duplicateProviderProfile]).sorted()
    }

    public let parser: SpecParser
    /// Profiles for `lint(sources:)` and `lint(flows:)`; `lint(paths:)` loads its own from
    /// the paths (built-ins plus `*.provider.yml` beside the specs).
    public var providers: ProviderCatalog

    public init(parser: SpecParser = SpecParser(), providers: ProviderCatalog = .builtIn) {
        self.parser = parser
        self.providers = providers
    }

    /// Lints files and directories (searched recursively for `*.md`, sorted, hidden entries
    /// and `_build` output skipped).
    public func lint(paths: [String]) -> LintRun {
        var diagnostics: [Diagnostic] = []
        let files = SpecFiles.expand(paths, diagnostics: &diagnostics)
        let providers = ProviderCatalog.load(paths: paths)
        diagnostics += providers.diagnostics
        let results = parser.parseAll(files.map { (path: $0, bytes: nil) })
        var flows: [Flow] = []
        for result in results {
            diagnostics += result.diagnostics
            if let flow = result.flow { flows.append(flow) }
        }
        diagnostics += lint(flows: flows, providers: providers)
        return LintRun(flows: flows, diagnostics: diagnostics.sortedForOutput(), files: files, providers: providers)
    }

    /// Lints source text that is not on disk (tests, editors).
    public func lint(sources: [(file: String, text: String)]) -> LintRun {
        var diagnostics: [Diagnostic] = []
        var flows: [Flow] = []
        for source in sources {
            let result = parser.parse(bytes: Array(source.text.utf8), file: source.file)
            diagnostics += result.diagnostics
            if let flow = result.flow { flows.append(flow) }
        }
        diagnostics += lint(flows: flows)
        return LintRun(flows: flows, diagnostics: diagnostics.sortedForOutput(), files: sources.map(\.file), providers: providers)
    }

    /// Semantic rules over already-parsed flows.
    /// Per-flow rules run on all cores (results joined in flow order, so the output does not
    /// depend on scheduling); corpus rules then see every flow.
    public func lint(flows: [Flow], providers: ProviderCatalog? = nil) -> [Diagnostic] {
        let providers = providers ?? self.providers
        let perFlow = OrderedSlots<[Diagnostic]>(count: flows.count)
        let descriptions = Self.openAPIDescriptions(for: flows)
        DispatchQueue.concurrentPerform(iterations: flows.count) { index in
            var found: [Diagnostic] = []
            let context = RuleContext(flow: flows[index], providers: providers, openAPI: descriptions[index])
            for rule in Self.flowRules { rule.check(context, into: &found) }
            perFlow.set(index, found)
        }
        var diagnostics = perFlow.values.flatMap { $0 }
        for rule in Self.corpusRules { rule.check(flows, into: &diagnostics) }
        return diagnostics
    }

    /// Each flow's `openapi:` description, each file read once however many flows name it.
    /// Several files are decoded on several threads.
    static func openAPIDescriptions(for flows: [Flow]) -> [Result<APIDescription, APIDescriptionProblem>?] {
        let files = flows.map { flow in flow.openapi.map { APIDescriptionLoader.resolve($0, specFile: flow.file) } }
        let distinct = Set(files.compactMap { try? $0?.get() })
        if distinct.count > 1 { APIDescriptionLoader.prefetch(Array(distinct)) }
        var loaded: [String: Result<APIDescription, APIDescriptionProblem>] = [:]
        return files.map { resolved in
            switch resolved {
            case nil:
                return nil
            case .failure(let problem):
                return .failure(problem)
            case .success(let file):
                if let known = loaded[file] { return known }
                let result = APIDescriptionLoader.load(file: file)
                loaded[file] = result
                return result
            }
        }
    }

    /// Parses files on all cores; results come back in file order.
}
