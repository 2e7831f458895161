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

    public init(maximumFileSize: Int = 16 * 1024 * 1024) {
        self.maximumFileSize = maximumFileSize
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
        var builder = FlowBuilder(source: source)
        return builder.build()
    }
}

/// Builds one `Flow` from a `SourceText`, collecting diagnostics.
struct FlowBuilder {
    let source: SourceText
    var diagnostics: [Diagnostic] = []

    init(source: SourceText) {
        self.source = source
    }

    private mutating func report(
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
    private struct Segment {
        enum Kind {
            case prose(heading: String, level: Int)
            case step(Step)
            case nonStepHeading
        }

        var kind: Kind
        var blocks: [CmarkNode] = []
    }

    private mutating func parseBody(startingAt firstLine: Int, into flow: inout Flow) {
        guard firstLine <= source.lineCount else { return }
        let bodyStart = source.lineStarts[firstLine - 1]
        let document = CmarkDocument(markdown: source.bytes[bodyStart...])
        let offset = firstLine - 1

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
    private mutating func parseStepHeading(_ node: CmarkNode, line: Int) -> Step? {
        let raw = source.lineText(line)
        let scalars = Array(raw.unicodeScalars)
        var index = 0
        while index < scalars.count, scalars[index] == " " { index += 1 }
        while index < scalars.count, scalars[index] == "#" { index += 1 }
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        let numberStart = index
        // `### -1. Title`, `### +2. Title`: a step heading with a sign is a wrong number, not prose.
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" || scalars[index] == "−" {
            var end = index + 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            if end > index + 1, end < scalars.count, scalars[end] == "." || scalars[end] == ")" {
                let written = String(String.UnicodeScalarView(scalars[index..<end]))
                report(.malformedStepHeading, at: source.location(line: line, column: numberStart + 1), "step number \(written) is out of range",
                       hint: "steps are numbered from 1: `### 1. What happens`")
                return nil
            }
        }
        while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
        guard index > numberStart, index < scalars.count, scalars[index] == "." || scalars[index] == ")" else { return nil }
        let digits = String(String.UnicodeScalarView(scalars[numberStart..<index]))
        let numberLocation = source.location(line: line, column: numberStart + 1)
        guard digits.count <= 6, let number = Int(digits), number > 0 else {
            report(.malformedStepHeading, at: numberLocation, "step number \(digits) is out of range",
                   hint: "steps are numbered from 1")
            return nil
        }
        index += 1
        let title = String(String.UnicodeScalarView(scalars[index...])).trimmingCharacters()
            .trimmingClosingHashes()
        if title.isEmpty {
            report(.malformedStepHeading, .warning, at: numberLocation, "step \(number) has no title",
                   hint: "write `### \(number). What happens`")
        }
        return Step(number: number, title: title, from: "", to: "",
                    prose: Markdown(source: "", location: numberLocation),
                    location: source.location(line: line, column: 1), numberLocation: numberLocation)
    }

    private mutating func flushProse(
        heading: String, level: Int, blocks: inout [CmarkNode], offset: Int,
        placement: ProseSection.Placement, into sections: inout [ProseSection], flow: inout Flow
    ) {
        defer { blocks = [] }
        var kept: [CmarkNode] = []
        for block in blocks {
            if block.type == "table", let rules = parseTokenTable(block, offset: offset) {
                if flow.tokenRulesLocation != nil {
                    report(.malformedTokenRules, at: source.location(line: block.startLine + offset, byteColumn: block.startColumn),
                           "a second token-rules table", hint: "keep all token rules in one table")
                }
                flow.tokenRules += rules
                flow.tokenRulesLocation = flow.tokenRulesLocation ?? source.location(line: block.startLine + offset, byteColumn: block.startColumn)
                continue
            }
            kept.append(block)
        }
        // Nothing to keep: no text, or a section that only held the token table.
        if kept.isEmpty, heading.isEmpty || !blocks.isEmpty { return }
        let markdown = markdownOf(kept, offset: offset)
        sections.append(ProseSection(heading: heading, level: level, body: markdown, placement: placement))
    }

    /// Markdown source of blocks, sliced from the file by their line ranges.
    private func markdownOf(_ blocks: [CmarkNode], offset: Int) -> Markdown {
        guard let first = blocks.first else {
            return Markdown(source: "", location: source.location(line: max(1, offset), column: 1))
        }
        let text = blocks.map { block in
            source.text(lines: block.startLine + offset, max(block.startLine, block.endLine) + offset).trimmingTrailingWhitespace()
        }.joined(separator: "\n\n")
        return Markdown(source: text, location: source.location(line: first.startLine + offset, byteColumn: first.startColumn))
    }

    // MARK: Steps

    private mutating func flushStep(
        _ current: inout Step?, blocks: inout [CmarkNode], offset: Int, into steps: inout [Step], flow: inout Flow
    ) {
        defer { current = nil; blocks = [] }
        guard var step = current else { return }
        var proseBlocks: [CmarkNode] = []
        var sawActors = false
        for (index, block) in blocks.enumerated() {
            let line = block.startLine + offset
            switch block.type {
            case "paragraph" where index == 0 || !sawActors && proseBlocks.allSatisfy({ $0.type != "paragraph" }):
                if let actors = parseActorsLine(block, offset: offset) {
                    step.from = actors.from
                    step.to = actors.to
                    step.actorsLocation = actors.location
                    step.fromLocation = actors.fromLocation
                    step.toLocation = actors.toLocation
                    sawActors = true
                } else {
                    proseBlocks.append(block)
                }
            case "list":
                if let alternates = parseAlternates(block, offset: offset) {
                    step.alternates += alternates
                } else {
                    proseBlocks.append(block)
                }
            case "code_block":
                let info = (block.fenceInfo ?? "").split(separator: " ").first.map { String($0).lowercased() } ?? ""
                let content = CodeBlockContent(literal: block.literal ?? "", fenceLine: line,
                                               fenceColumn: source.scalarColumn(line: line, byteColumn: block.startColumn),
                                               source: source)
                if info == "http" {
                    if step.exchange != nil {
                        report(.malformedHTTP, at: content.fenceLocation, "step \(step.number) has a second http block",
                               hint: "a step sends one request; drive other branches with blocks nested in their alternates")
                        continue
                    }
                    let request = HTTPBlockParser(block: content).parse(diagnostics: &diagnostics)
                    step.exchange = request.map { Exchange(request: $0) } ?? Exchange(
                        request: RequestTemplate(method: "", target: "", location: content.fenceLocation))
                    if request == nil { step.exchange = nil; pendingInvalidHTTP.insert(step.number) }
                } else if info == "expect" {
                    let expectation = ExpectBlockParser(block: content).parse(diagnostics: &diagnostics)
                    if step.exchange == nil {
                        if !pendingInvalidHTTP.contains(step.number) {
                            pendingExpect.append((step.number, content.fenceLocation, expectation))
                        }
                    } else if step.exchange?.expectation != nil {
                        report(.malformedExpect, at: content.fenceLocation, "step \(step.number) has a second expect block")
                    } else {
                        step.exchange?.expectation = expectation
                    }
                } else {
                    proseBlocks.append(block)
                }
            default:
                proseBlocks.append(block)
            }
        }
        // An expect block written before its http block still belongs to it.
        for pending in pendingExpect where pending.step == step.number {
            if step.exchange != nil, step.exchange?.expectation == nil {
                step.exchange?.expectation = pending.expectation
            } else if step.exchange == nil {
                let branchesSend = step.alternates.contains { $0.request != nil }
                if !branchesSend {
                    report(.expectWithoutHTTP, at: pending.location, "expect block in step \(step.number) has no http block to check",
                           hint: "add the request as a fenced `http` block in the same step")
                }
            }
        }
        pendingExpect.removeAll { $0.step == step.number }
        pendingInvalidHTTP.remove(step.number)
        if step.actorsLocation == nil {
            report(.noActorsLine, at: step.location, "step \(step.number) has no actors line",
                   hint: "write `from → to` (actor ids) as the first line under the heading")
        }
        step.prose = markdownOf(proseBlocks, offset: offset)
        if proseBlocks.isEmpty { step.prose.location = step.location }
        steps.append(step)
    }

    private var pendingExpect: [(step: Int, location: SourceLocation, expectation: Expectation?)] = []
    private var pendingInvalidHTTP: Set<Int> = []

    private struct ActorsLine {
        var from: String
        var to: String
        var location: SourceLocation
        var fromLocation: SourceLocation
        var toLocation: SourceLocation
    }

    /// `from → to` (or `->`), alone in a paragraph.
    private func parseActorsLine(_ block: CmarkNode, offset: Int) -> ActorsLine? {
        guard block.startLine == block.endLine else { return nil }
        let line = block.startLine + offset
        let raw = source.lineText(line)
        let scalars = Array(raw.unicodeScalars)
        let start = source.scalarColumn(line: line, byteColumn: block.startColumn) - 1
        guard start < scalars.count else { return nil }
        let content = String(String.UnicodeScalarView(scalars[start...])).trimmingTrailingWhitespace()
        let arrow: String
        if content.contains("→") { arrow = "→" } else if content.contains("->") { arrow = "->" } else { return nil }
        let parts = content.components(separatedByString: arrow)
        guard parts.count == 2 else { return nil }
        let from = parts[0].trimmingCharacters().trimmingBackticks()
        let to = parts[1].trimmingCharacters().trimmingBackticks()
        guard !from.isEmpty, !to.isEmpty, FrontMatterParser.isValidActorID(from), FrontMatterParser.isValidActorID(to) else { return nil }
        let fromColumn = source.column(of: from, onLine: line, from: start + 1) ?? start + 1
        let arrowColumn = source.column(of: arrow, onLine: line, from: fromColumn) ?? fromColumn
        let toColumn = source.column(of: to, onLine: line, from: arrowColumn) ?? arrowColumn
        return ActorsLine(from: from, to: to, location: source.location(line: line, column: start + 1),
                          fromLocation: source.location(line: line, column: fromColumn),
                          toLocation: source.location(line: line, column: toColumn))
    }

    /// A bullet list is an alternates list when any item ends in `→ target`. Items that do not
    /// are reported (FS304). Returns nil for ordinary prose lists.
    private mutating func parseAlternates(_ list: CmarkNode, offset: Int) -> [Alternate]? {
        let items = list.children.filter { $0.type == "item" }
        let parsed = items.map { item -> (CmarkNode, ArrowItem?) in (item, arrowItem(item, offset: offset)) }
        guard parsed.contains(where: { $0.1 != nil }) else { return nil }
        var alternates: [Alternate] = []
        for (item, arrow) in parsed {
            let itemLocation = source.location(line: item.startLine + offset, byteColumn: item.startColumn)
            guard let arrow else {
                report(.malformedAlternate, at: itemLocation, "list item in an alternates list has no target",
                       hint: "end each alternate with `→ N` (a step) or `→ end: outcome`")
                continue
            }
            guard let target = arrow.target else {
                report(.malformedAlternate, at: arrow.targetLocation, "'\(arrow.targetText)' is not a step number or `end: outcome`",
                       hint: "write `→ 5` or `→ end: cancelled`")
                continue
            }
            var alternate = Alternate(label: arrow.label, target: target, location: itemLocation, targetLocation: arrow.targetLocation)
            var noteBlocks: [CmarkNode] = []
            for child in item.children.dropFirst() {
                let line = child.startLine + offset
                if child.type == "code_block" {
                    let info = (child.fenceInfo ?? "").split(separator: " ").first.map { String($0).lowercased() } ?? ""
                    let content = CodeBlockContent(literal: child.literal ?? "", fenceLine: line,
                                                   fenceColumn: source.scalarColumn(line: line, byteColumn: child.startColumn),
                                                   source: source)
                    if info == "http" {
                        alternate.request = HTTPBlockParser(block: content).parse(diagnostics: &diagnostics)
                        continue
                    } else if info == "expect" {
                        alternate.expectation = ExpectBlockParser(block: content).parse(diagnostics: &diagnostics)
                        continue
                    }
                }
                noteBlocks.append(child)
            }
            if !noteBlocks.isEmpty { alternate.note = markdownOf(noteBlocks, offset: offset) }
            alternates.append(alternate)
        }
        return alternates
    }

    private struct ArrowItem {
        var label: String
        var targetText: String
        var target: Target?
        var targetLocation: SourceLocation
    }

    private func arrowItem(_ item: CmarkNode, offset: Int) -> ArrowItem? {
        guard let paragraph = item.firstChild, paragraph.type == "paragraph" else { return nil }
        let firstLine = paragraph.startLine + offset
        let lastLine = max(paragraph.startLine, paragraph.endLine) + offset
        let lastText = source.lineText(lastLine)
        // The arrow is the last `→` or `->` on the paragraph's last line.
        let scalars = Array(lastText.unicodeScalars)
        var arrowIndex: Int?
        var arrowLength = 1
        var index = scalars.count - 1
        while index >= 0 {
            if scalars[index] == "→" { arrowIndex = index; arrowLength = 1; break }
            if scalars[index] == ">", index > 0, scalars[index - 1] == "-" { arrowIndex = index - 1; arrowLength = 2; break }
            index -= 1
        }
        guard let arrowIndex else { return nil }
        let afterArrow = String(String.UnicodeScalarView(scalars[(arrowIndex + arrowLength)...]))
        let targetText = afterArrow.trimmingCharacters()
        guard !targetText.isEmpty else { return nil }
        let leading = afterArrow.unicodeScalars.prefix { $0 == " " || $0 == "\t" }.count
        let targetLocation = source.location(line: lastLine, column: arrowIndex + arrowLength + leading + 1)
        // Label: paragraph text before the arrow, across lines.
        let startColumn = source.scalarColumn(line: firstLine, byteColumn: paragraph.startColumn)
        var labelLines: [String] = []
        for line in firstLine...lastLine {
            var text = Array(source.lineText(line).unicodeScalars)
            if line == lastLine { text = Array(text[..<arrowIndex]) }
            if line == firstLine { text = Array(text.dropFirst(startColumn - 1)) }
            labelLines.append(String(String.UnicodeScalarView(text)).trimmingCharacters())
        }
        let label = labelLines.joined(separator: " ").trimmingCharacters().trimmingTrailingColon()
        return ArrowItem(label: label, targetText: targetText, target: Self.target(targetText), targetLocation: targetLocation)
    }

    static func target(_ text: String) -> Target? {
        let cleaned = text.trimmingBackticks().trimmingCharacters()
        if let number = Int(cleaned), number > 0, cleaned.count <= 6 { return .step(number) }
        let lowered = cleaned.lowercased()
        if lowered == "end" { return .end(.success) }
        guard lowered.hasPrefix("end") else { return nil }
        var rest = cleaned.dropFirst(3).drop { $0 == " " }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " }
        let outcome = String(rest).trimmingCharacters()
        guard !outcome.isEmpty, !outcome.contains(" "),
              outcome.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else { return nil }
        return .end(Outcome(outcome.lowercased()))
    }

    // MARK: Token rules

    /// A GFM table whose header starts with `Rule`; nil for other tables (kept as prose).
    private mutating func parseTokenTable(_ table: CmarkNode, offset: Int) -> [TokenRule]? {
        let rows = table.children
        guard let header = rows.first, header.type == "table_header" || header.type == "table_row" else { return nil }
        let headerCells = header.children.map { $0.plainText.trimmingCharacters().lowercased() }
        guard headerCells.first == "rule" else { return nil }
        let tableLocation = source.location(line: table.startLine + offset, byteColumn: table.startColumn)
        guard let tokenColumn = headerCells.firstIndex(of: "token") else {
            report(.malformedTokenRules, at: tableLocation, "the token-rules table has no 'Token' column",
                   hint: "columns are `Rule | Token | Requirement`")
            return []
        }
        let requirementColumn = headerCells.firstIndex(of: "requirement")
        var rules: [TokenRule] = []
        var inheritedStep: Int?
        var inheritedToken = ""
        for row in rows.dropFirst() {
            let line = row.startLine + offset
            let cells = row.children.map { $0.plainText.trimmingCharacters() }
            let rowLocation = source.location(line: line, column: max(1, (source.column(of: "|", onLine: line) ?? 0) + 2))
            let id = cells.first ?? ""
            if id.isEmpty {
                report(.malformedTokenRules, at: rowLocation, "token rule without a rule id", hint: "the first column names the rule (`signature`, `audience`…)")
                continue
            }
            let idLocation = source.location(line: line, column: source.column(of: id, onLine: line) ?? rowLocation.column)
            var token = tokenColumn < cells.count ? cells[tokenColumn] : ""
            var step = inheritedStep
            var stepLocation: SourceLocation?
            if let at = token.lastIndex(of: "@") {
                let number = String(token[token.index(after: at)...]).trimmingCharacters()
                let column = source.column(of: "@", onLine: line) ?? 1
                stepLocation = source.location(line: line, column: column)
                if let value = Int(number), value > 0, number.count <= 6 {
                    step = value
                } else {
                    report(.tokenRuleStep, at: stepLocation!, "'@ \(number)' does not name a step",
                           hint: "write the step that submits the token: `id_token @ 6`")
                }
                token = String(token[..<at]).trimmingCharacters()
            }
            if token.isEmpty { token = inheritedToken }
            if token.isEmpty {
                report(.malformedTokenRules, at: idLocation, "token rule '\(id)' does not name a token", hint: "write `id_token @ 6` in the Token column")
            }
            inheritedStep = step
            inheritedToken = token
            let requirement = requirementColumn.flatMap { $0 < cells.count ? cells[$0] : nil } ?? ""
            rules.append(TokenRule(id: id, kind: TokenRuleKind(rawValue: id.lowercased()), token: token, step: step,
                                   requirement: requirement, location: idLocation, stepLocation: stepLocation))
        }
        return rules
    }
}

extension String {
    package func trimmingBackticks() -> String {
        var slice = Substring(self)
        while slice.first == "`" { slice.removeFirst() }
        while slice.last == "`" { slice.removeLast() }
        return String(slice)
    }

    package func trimmingTrailingColon() -> String {
        var slice = Substring(self)
        while let last = slice.last, last == ":" || last == " " { slice.removeLast() }
        return String(slice)
    }

    func trimmingClosingHashes() -> String {
        var slice = Substring(self)
        while slice.last == "#" { slice.removeLast() }
        return String(slice).trimmingCharacters()
    }

    package func components(separatedByString separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        let separatorScalars = Array(separator.unicodeScalars)
        var current = ""
        var scalars = Array(rest.unicodeScalars)[...]
        while !scalars.isEmpty {
            if scalars.starts(with: separatorScalars) {
                parts.append(current)
                current = ""
                scalars = scalars.dropFirst(separatorScalars.count)
            } else {
                current.unicodeScalars.append(scalars.removeFirst())
            }
        }
        rest = Substring(current)
        parts.append(String(rest))
        return parts
    }
}
