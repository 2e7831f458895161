import FlowModel
import FlowParser
import Foundation

/// What `flowspec import` produced: a flow in the new model (locations point into the imported
/// file) and a report of everything that could not be mapped, or was guessed, with lines.
public struct ImportResult: Sendable {
    public var flow: Flow?
    public var report: [Diagnostic]

    public init(flow: Flow?, report: [Diagnostic]) {
        self.flow = flow
        self.report = report
    }
}

/// Reads integration documents in the seed style — a fenced YAML header, a `**Bước N:**`
/// (`**Step N:**`, `**Adım N:**`) step list with `Nếu …:` (`If …:`, `Eğer …:`) branches, and
/// a Mermaid `sequenceDiagram` with participants, messages, `%% Step N` markers and
/// `alt/else` — into a `Flow`.
///
/// The legacy format never says where a branch goes; targets are inferred (an end word ends
/// the flow, a retry word loops, a consequence worded exactly like another branch's goes where
/// that branch goes, otherwise the next step) and every inference is reported so a writer can
/// review it.
public struct LegacyImporter: Sendable {
    public var id: String?
    public var lang: String?

    public init(id: String? = nil, lang: String? = nil) {
        self.id = id
        self.lang = lang
    }

    public func importDocument(bytes: [UInt8], file: String) -> ImportResult {
        let source = SourceText(file: file, bytes: bytes)
        // Binary (NUL anywhere) is FS001, bad encodings FS002: the shared check says which.
        if let problem = source.unusableReason() {
            return ImportResult(flow: nil, report: [problem.diagnostic(in: source)])
        }
        var session = ImportSession(source: source, explicitID: id, explicitLang: lang)
        return session.run()
    }
}

struct LegacyStep {
    var number: Int
    var text: String
    var line: Int
    var branches: [(condition: String, consequence: String, line: Int)]
}

/// One import: the stages of `run()` each live in their own file (scan, header, steps, Mermaid,
/// assembly), all reporting into `report`.
struct ImportSession {
    let source: SourceText
    let explicitID: String?
    let explicitLang: String?
    var report: [Diagnostic] = []

    init(source: SourceText, explicitID: String?, explicitLang: String?) {
        self.source = source
        self.explicitID = explicitID
        self.explicitLang = explicitLang
    }

    func location(_ line: Int, _ column: Int = 1) -> SourceLocation {
        source.location(line: max(line, 1), column: column)
    }

    mutating func note(_ line: Int, _ message: String, hint: String? = nil) {
        report.append(Diagnostic(.legacyUnmapped, severity: .note, location: location(line), message: message, hint: hint))
    }

    mutating func unmapped(_ line: Int, _ message: String, hint: String? = nil) {
        report.append(Diagnostic(.legacyUnmapped, severity: .warning, location: location(line), message: message, hint: hint))
    }

    /// The stages, in order: bound the input, scan the blocks, drop end-only steps, cast the
    /// actors, match diagram messages, resolve branches, build steps, attach API routes.
    mutating func run() -> ImportResult {
        // The same work bounds as a spec, before cmark reads the document.
        if let bound = InputBounds.check(source) { return ImportResult(flow: nil, report: [bound]) }
        let document = CmarkDocument(markdown: source.bytes[...])
        let scan = scanBlocks(document.root.children)
        guard !scan.steps.isEmpty else {
            report.append(Diagnostic(.legacyUnmapped, severity: .error, location: .start(of: source.file),
                                     message: "no steps found: expected a list of `**Bước N:**` (or `**Step N:**`, `**Adım N:**`) items"))
            return ImportResult(flow: nil, report: report)
        }
        let lang = explicitLang ?? detectLanguage()
        let flowTitle = scan.title ?? "Imported flow"
        if scan.title == nil { unmapped(1, "no title in the header; used '\(flowTitle)'", hint: "set `title:` in the front matter") }
        let steps = droppingEndOnlySteps(scan.steps)
        let cast = castActors(scan.diagram)
        let messages = messagesByStep(steps, diagram: scan.diagram)
        let alternates = resolveBranches(steps)
        var flowSteps = buildSteps(steps, messages: messages, alternates: alternates, cast: cast, hasDiagram: scan.diagram != nil)
        attachRoutes(scan.routes, to: &flowSteps, actors: cast.actors)
        for item in scan.diagram?.unmapped ?? [] {
            note(item.line, "diagram line not mapped: \(item.text)")
        }
        let flow = Flow(file: source.file, id: explicitID ?? slug(flowTitle), title: flowTitle, summary: scan.summary, lang: lang,
                        tags: scan.tags, environments: Array(NSOrderedSet(array: scan.environments)) as? [String] ?? scan.environments,
                        provider: cast.provider, actors: cast.actors, steps: flowSteps, sections: scan.sections,
                        stepsHeading: scan.stepsHeading, location: .start(of: source.file))
        return ImportResult(flow: flow, report: report.sortedForOutput())
    }
}

extension String {
    func trimmingTrailingDot() -> String {
        var slice = Substring(self)
        while slice.last == "." || slice.last == " " { slice.removeLast() }
        return String(slice)
    }

    func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
