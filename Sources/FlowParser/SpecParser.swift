import FlowModel

/// The outcome of parsing one spec file: the flow (when the file was usable enough to build
/// one) and every syntax problem found on the way. Never throws, never traps, on any bytes.
public struct ParseResult: Sendable {
    public var flow: Flow?
    public var diagnostics: [Diagnostic]

    public init(flow: Flow?, diagnostics: [Diagnostic]) {
        self.flow = flow
        self.diagnostics = diagnostics
    }
}

/// Reads a flow spec (Markdown + YAML front matter) into a `Flow`. Syntax only: semantic
/// judgements (reachability, undeclared actors, …) belong to `FlowLint`.
public struct SpecParser: Sendable {
    /// Files larger than this are refused (FS004) rather than parsed: no spec is that big, and
    /// the limit keeps a hostile input from costing minutes.
    public var maximumFileSize: Int
    /// Render prose for the site while the spec's nodes are at hand (nil: do not). The site
    /// builder asks for it; `lint` and `check` never show prose and do not pay for it.
    public var renderingProse: ProseRendering?

    public init(maximumFileSize: Int = 16 * 1024 * 1024, renderingProse: ProseRendering? = nil) {
        self.maximumFileSize = maximumFileSize
        self.renderingProse = renderingProse
    }

    /// Reads and parses the file at `path`. Unreadable files give FS003.
    public func parse(fileAt path: String) -> ParseResult {
        switch FileReader.read(path, limit: maximumFileSize) {
        case .success(let bytes):
            return parse(bytes: bytes, file: path)
        case .failure(let problem):
            let code: DiagnosticCode = problem.isTooLarge ? .tooLarge : .unreadable
            return ParseResult(flow: nil, diagnostics: [
                Diagnostic(code, severity: .error, location: .start(of: path), message: problem.message),
            ])
        }
    }

    public func parse(bytes: [UInt8], file: String) -> ParseResult {
        let source = SourceText(file: file, bytes: bytes)
        if bytes.count > maximumFileSize {
            return ParseResult(flow: nil, diagnostics: [
                Diagnostic(.tooLarge, severity: .error, location: .start(of: file),
                           message: "file is \(bytes.count) bytes, over the \(maximumFileSize)-byte limit for a spec"),
            ])
        }
        if let problem = source.unusableReason() {
            return ParseResult(flow: nil, diagnostics: [problem.diagnostic(in: source)])
        }
        if let bound = InputBounds.check(source) {
            return ParseResult(flow: nil, diagnostics: [bound])
        }
        var builder = FlowBuilder(source: source, prose: renderingProse)
        return builder.build()
    }
}

/// How the parser renders prose while it holds the spec's nodes: with raw HTML kept or omitted
/// (the site's `allow-raw-html`).
public struct ProseRendering: Hashable, Sendable {
    public var allowRawHTML: Bool

    public init(allowRawHTML: Bool) { self.allowRawHTML = allowRawHTML }
}

/// Builds one `Flow` from a `SourceText`, collecting diagnostics.
struct FlowBuilder {
    let source: SourceText
    var diagnostics: [Diagnostic] = []
    /// Expect blocks seen before their step's http block, and steps whose http block was invalid.
    var pendingExpect: [(step: Int, location: SourceLocation, expectation: Expectation?)] = []
    var pendingInvalidHTTP: Set<Int> = []
    /// Prose rendering asked for, and the parsed body whose nodes it renders.
    let prose: ProseRendering?
    var document: CmarkDocument?
    /// Lines of the blocks cmark-gfm gave no position, and of the tables after them (`lines(of:)`).
    var placedLines: [OpaquePointer: (first: Int, last: Int)] = [:]

    init(source: SourceText, prose: ProseRendering? = nil) {
        self.source = source
        self.prose = prose
    }

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity = .error, at location: SourceLocation, _ message: String,
        hint: String? = nil, related: [RelatedLocation] = []
    ) {
        diagnostics.append(Diagnostic(code, severity: severity, location: location, message: message, hint: hint, related: related))
    }

    mutating func build() -> ParseResult {
        let file = source.file
        let block: FrontMatterBlock
        switch source.splitFrontMatter() {
        case .found(let found):
            block = found
        case .missing(let looksLegacy):
            report(.frontMatterMissing, at: .start(of: file), "file has no front matter",
                   hint: looksLegacy
                       ? "this looks like a legacy document (fenced YAML header); convert it with `flowspec import \(file)`"
                       : "start the file with `---`, the YAML keys (id, title, actors…), and `---`")
            return ParseResult(flow: nil, diagnostics: diagnostics)
        case .unterminated(let line):
            report(.frontMatterMissing, at: source.location(line: line, column: 1), "front matter is never closed",
                   hint: "end the YAML with a line containing only `---`")
            return ParseResult(flow: nil, diagnostics: diagnostics)
        }
        var frontMatterParser = FrontMatterParser(source: source, block: block)
        let frontMatter = frontMatterParser.parse()
        diagnostics += frontMatterParser.diagnostics
        guard let frontMatter else { return ParseResult(flow: nil, diagnostics: diagnostics) }

        var flow = Flow(
            file: file,
            id: frontMatter.id ?? "",
            title: frontMatter.title ?? "",
            summary: frontMatter.summary,
            lang: frontMatter.lang ?? "en",
            translationOf: frontMatter.translationOf,
            tags: frontMatter.tags,
            environments: frontMatter.environments,
            provider: frontMatter.provider,
            nonce: frontMatter.nonce,
            openapi: frontMatter.openapi,
            actors: frontMatter.actors,
            variables: frontMatter.variables,
            location: source.location(line: block.openingLine, column: 1),
            keyLocations: frontMatter.keyLocations
        )
        parseBody(startingAt: block.bodyStartLine, into: &flow)
        return ParseResult(flow: flow, diagnostics: diagnostics)
    }

    // MARK: Body

    /// A run of top-level blocks belonging to one section or step.
    struct Segment {
        enum Kind {
            case prose(heading: String, level: Int)
            case step(Step)
            case nonStepHeading
        }

        var kind: Kind
        var blocks: [CmarkNode] = []
    }

    mutating func parseBody(startingAt firstLine: Int, into flow: inout Flow) {
        guard firstLine <= source.lineCount else { return }
        let bodyStart = source.lineStarts[firstLine - 1]
        let document = CmarkDocument(markdown: source.bytes[bodyStart...])
        self.document = document
        defer { self.document = nil; placedLines = [:] }
        let offset = firstLine - 1
        placeInterruptedParagraphs(document, offset: offset)

        var sections: [ProseSection] = []
        var steps: [Step] = []
        var currentHeading = ""
        var currentLevel = 0
        var proseBlocks: [CmarkNode] = []
        var currentStep: Step?
        var stepBlocks: [CmarkNode] = []
        var seenStep = false

        func lineOf(_ node: CmarkNode) -> Int { node.startLine + offset }

        for node in document.root.children {
            if node.type == "heading" {
                let level = node.headingLevel
                let line = lineOf(node)
                if level == 3, let parsed = parseStepHeading(node, line: line) {
                    flushStep(&currentStep, blocks: &stepBlocks, offset: offset, into: &steps, flow: &flow)
                    if currentLevel > 0, flow.stepsHeading == nil {
                        // The section holding the steps: its heading titles the steps; its intro stays prose.
                        flow.stepsHeading = currentHeading
                        if proseBlocks.isEmpty { currentHeading = ""; currentLevel = 0 }
                    }
                    flushProse(heading: currentHeading, level: currentLevel, blocks: &proseBlocks, offset: offset,
                               placement: seenStep ? .afterSteps : .beforeSteps, into: &sections, flow: &flow)
                    currentHeading = ""
                    currentLevel = 0
                    currentStep = parsed
                    seenStep = true
                    continue
                }
                if level <= 3, currentStep != nil, level == 3 {
                    // A level-3 heading inside the steps that is not `### N. Title`.
                    report(.malformedStepHeading, .warning, at: source.location(line: line, byteColumn: node.startColumn),
                           "heading '\(node.plainText)' in the steps is not a step heading",
                           hint: "steps are `### N. Title`; this heading and its text are kept as prose of step \(currentStep!.number)")
                    stepBlocks.append(node)
                    continue
                }
                if level <= 2 {
                    flushStep(&currentStep, blocks: &stepBlocks, offset: offset, into: &steps, flow: &flow)
                    flushProse(heading: currentHeading, level: currentLevel, blocks: &proseBlocks, offset: offset,
                               placement: seenStep ? .afterSteps : .beforeSteps, into: &sections, flow: &flow)
                    currentHeading = node.plainText
                    currentLevel = level
                    continue
                }
            }
            if currentStep != nil {
                stepBlocks.append(node)
            } else {
                proseBlocks.append(node)
            }
        }
        flushStep(&currentStep, blocks: &stepBlocks, offset: offset, into: &steps, flow: &flow)
        flushProse(heading: currentHeading, level: currentLevel, blocks: &proseBlocks, offset: offset,
                   placement: seenStep ? .afterSteps : .beforeSteps, into: &sections, flow: &flow)
        flow.steps = steps
        flow.sections = sections
    }

    /// `### 6. Title` (also `6)`); nil when the heading is not a step heading.
    mutating func parseStepHeading(_ node: CmarkNode, line: Int) -> Step? {
        switch Self.stepHeading(source.lineBytes(line)) {
        case .notAStep:
            return nil
        case .signed(let written, let column):
            report(.malformedStepHeading, at: source.location(line: line, column: column), "step number \(written) is out of range",
                   hint: "steps are numbered from 1: `### 1. What happens`")
            return nil
        case .outOfRange(let digits, let column):
            report(.malformedStepHeading, at: source.location(line: line, column: column), "step number \(digits) is out of range",
                   hint: "steps are numbered from 1")
            return nil
        case .step(let number, let title, let column):
            let numberLocation = source.location(line: line, column: column)
            if title.isEmpty {
                report(.malformedStepHeading, .warning, at: numberLocation, "step \(number) has no title",
                       hint: "write `### \(number). What happens`")
            }
            return Step(number: number, title: title, from: "", to: "",
                        prose: Markdown(source: "", location: numberLocation),
                        location: source.location(line: line, column: 1), numberLocation: numberLocation)
        }
    }

    mutating func flushProse(
        heading: String, level: Int, blocks: inout [CmarkNode], offset: Int,
        placement: ProseSection.Placement, into sections: inout [ProseSection], flow: inout Flow
    ) {
        defer { blocks = [] }
        var kept: [CmarkNode] = []
        for block in blocks {
            if block.type == "table", let rules = parseTokenTable(block, offset: offset) {
                let location = source.location(line: lines(of: block).first + offset, byteColumn: block.startColumn)
                if flow.tokenRulesLocation != nil {
                    report(.malformedTokenRules, at: location, "a second token-rules table", hint: "keep all token rules in one table")
                }
                flow.tokenRules += rules
                flow.tokenRulesLocation = flow.tokenRulesLocation ?? location
                continue
            }
            kept.append(block)
        }
        // Nothing to keep: no text, or a section that only held the token table.
        if kept.isEmpty, heading.isEmpty || !blocks.isEmpty { return }
        let markdown = markdownOf(kept, offset: offset, topLevel: true)
        sections.append(ProseSection(heading: heading, level: level, body: markdown, placement: placement))
    }

    /// Markdown source of blocks, sliced from the file by their line ranges (`lines(of:)`: a
    /// paragraph that a table interrupts is placed by the table's delimiter row; a block still
    /// without a position is left out of the source). Top-level blocks are also rendered from
    /// their nodes when prose rendering was asked for (blocks nested in a list item are not: a
    /// tight list would render their paragraphs without `<p>`, unlike the same text on its own,
    /// which is how the site has always shown them).
    func markdownOf(_ blocks: [CmarkNode], offset: Int, topLevel: Bool = false) -> Markdown {
        let positioned = blocks.filter { lines(of: $0).first > 0 }
        guard let first = positioned.first else {
            return Markdown(source: "", location: source.location(line: max(1, offset), column: 1))
        }
        let text = positioned.map { block in
            let (firstLine, lastLine) = lines(of: block)
            return source.text(lines: firstLine + offset, lastLine + offset).trimmingTrailingWhitespace()
        }.joined(separator: "\n\n")
        var rendered: RenderedMarkdown?
        if topLevel, let prose, let document {
            rendered = MarkdownRenderer.rendered(blocks, of: document, allowRawHTML: prose.allowRawHTML)
        }
        let location = source.location(line: lines(of: first).first + offset, byteColumn: max(1, first.startColumn))
        return Markdown(source: text, location: location, rendered: rendered)
    }

}
