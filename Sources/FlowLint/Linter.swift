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
        let results = parseAll(files)
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
    static func openAPIDescriptions(for flows: [Flow]) -> [Result<APIDescription, APIDescriptionProblem>?] {
        var loaded: [String: Result<APIDescription, APIDescriptionProblem>] = [:]
        return flows.map { flow in
            guard let written = flow.openapi else { return nil }
            switch APIDescriptionLoader.resolve(written, specFile: flow.file) {
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
    private func parseAll(_ files: [String]) -> [ParseResult] {
        let parser = self.parser
        let results = OrderedSlots<ParseResult>(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            results.set(index, parser.parse(fileAt: files[index]))
        }
        return results.values
    }
}

/// Turns command-line paths into the list of spec files.
public enum SpecFiles {
    public static func expand(_ paths: [String], diagnostics: inout [Diagnostic]) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                diagnostics.append(Diagnostic(.unreadable, severity: .error, location: .start(of: path), message: "no such file or directory"))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            var found: [String] = []
            var unreadable: [(path: String, reason: String)] = []
            collectSpecs(in: path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path, into: &found, unreadable: &unreadable)
            for folder in unreadable {
                diagnostics.append(Diagnostic(.unreadable, severity: .error, location: .start(of: folder.path),
                                              message: "cannot read this directory: \(folder.reason)",
                                              hint: "check its permissions (flowspec needs to list it)"))
            }
            if found.isEmpty, unreadable.isEmpty {
                diagnostics.append(Diagnostic(.noSpecs, severity: .error, location: .start(of: path),
                                              message: "no *.md specs in this directory"))
            }
            files += found.sorted()
        }
        // A file named twice (`flows flows/a.md`) is read once.
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }

    /// `*.md` files under a folder, found with readdir and the entry types it reports (no stat per
    /// file: listing 10 000 specs must cost milliseconds). Hidden entries, `_build` and
    /// `node_modules` are skipped; symbolic links to folders are not followed.
    private static func collectSpecs(in directory: String, into found: inout [String], unreadable: inout [(path: String, reason: String)]) {
        guard let dir = opendir(directory) else {
            unreadable.append((directory, String(cString: strerror(errno))))
            return
        }
        defer { closedir(dir) }
        var subdirectories: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name.hasPrefix(".") || name == "_build" || name == "node_modules" { continue }
            let child = directory + "/" + name
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                type = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
            }
            if type == UInt8(DT_DIR) {
                subdirectories.append(child)
            } else if name.hasSuffix(".md") {
                found.append(child)
            }
        }
        for subdirectory in subdirectories { collectSpecs(in: subdirectory, into: &found, unreadable: &unreadable) }
    }
}

