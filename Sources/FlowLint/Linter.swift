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

/// One batch of `Linter.lint(paths:inBatchesOf:_:)`: its parsed flows, whether the parser or
/// the per-flow rules found an error in them, and the provider profiles of the run.
public struct LintBatch: Sendable {
    public var flows: [Flow]
    public var hasErrors: Bool
    public var providers: ProviderCatalog
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
        var flows: [Flow] = []
        var run = lint(paths: paths, inBatchesOf: .max) { flows += $0.flows }
        run.flows = flows
        return run
    }

    /// Lints files and directories a batch of `size` files at a time, handing each batch's
    /// flows to `body` instead of keeping them (the run's `flows` is empty): what stays is a
    /// small entry per flow for the rules over all of them (`Corpus`), so that linting a large
    /// corpus does not hold it whole. The diagnostics are those of `lint(paths:)`, whatever the
    /// batch size.
    public func lint(paths: [String], inBatchesOf size: Int, _ body: (LintBatch) -> Void) -> LintRun {
        var diagnostics: [Diagnostic] = []
        let files = SpecFiles.expand(paths, diagnostics: &diagnostics)
        let providers = ProviderCatalog.load(paths: paths)
        diagnostics += providers.diagnostics
        var entries: [Corpus.Entry] = []
        var whole: [Flow]?
        let batched = size < files.count
        var start = 0
        while start < files.count {
            let batch = files[start..<start + min(max(1, size), files.count - start)]
            start = batch.endIndex
            var found: [Diagnostic] = []
            var flows: [Flow] = []
            for result in parser.parseAll(batch.map { (path: $0, bytes: nil) }) {
                found += result.diagnostics
                if let flow = result.flow { flows.append(flow) }
            }
            found += flowDiagnostics(flows, providers: providers)
            entries += flows.map { Corpus.Entry($0, hashed: batched) }
            // One batch: its flows are the corpus, held anyway; several: each is read again
            // from its file when a rule compares it.
            if !batched { whole = flows }
            body(LintBatch(flows: flows, hasErrors: found.contains { $0.severity == .error }, providers: providers))
            diagnostics += found
        }
        diagnostics += corpusDiagnostics(whole.map(Corpus.init(flows:)) ?? Corpus(entries: entries, parser: parser))
        return LintRun(flows: [], diagnostics: diagnostics.sortedForOutput(), files: files, providers: providers)
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
        flowDiagnostics(flows, providers: providers ?? self.providers) + corpusDiagnostics(Corpus(flows: flows))
    }

    /// The per-flow rules, on all cores, joined in flow order.
    func flowDiagnostics(_ flows: [Flow], providers: ProviderCatalog) -> [Diagnostic] {
        let perFlow = OrderedSlots<[Diagnostic]>(count: flows.count)
        let descriptions = Self.openAPIDescriptions(for: flows)
        DispatchQueue.concurrentPerform(iterations: flows.count) { index in
            var found: [Diagnostic] = []
            let context = RuleContext(flow: flows[index], providers: providers, openAPI: descriptions[index])
            for rule in Self.flowRules { rule.check(context, into: &found) }
            perFlow.set(index, found)
        }
        return perFlow.values.flatMap { $0 }
    }

    /// The rules over all the flows (ids, translations).
    func corpusDiagnostics(_ corpus: Corpus) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for rule in Self.corpusRules { rule.check(corpus, into: &diagnostics) }
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
