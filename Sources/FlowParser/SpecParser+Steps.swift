import FlowModel

/// Steps: the blocks under a step heading (actors line, alternates, http and expect blocks, prose).
extension FlowBuilder {
    // MARK: Steps

    mutating func flushStep(
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
                if !attachCodeBlock(block, line: line, to: &step) { proseBlocks.append(block) }
            default:
                proseBlocks.append(block)
            }
        }
        settlePendingExpect(for: &step)
        if step.actorsLocation == nil {
            report(.noActorsLine, at: step.location, "step \(step.number) has no actors line",
                   hint: "write `from → to` (actor ids) as the first line under the heading")
        }
        step.prose = markdownOf(proseBlocks, offset: offset, topLevel: true)
        if proseBlocks.isEmpty { step.prose.location = step.location }
        steps.append(step)
    }

    /// A fenced block of a step: an `http` request or an `expect` block is attached to the step
    /// (false for any other block, which is prose).
    mutating func attachCodeBlock(_ block: CmarkNode, line: Int, to step: inout Step) -> Bool {
        let info = (block.fenceInfo ?? "").split(separator: " ").first.map { String($0).lowercased() } ?? ""
        let content = CodeBlockContent(literal: block.literal ?? "", fenceLine: line,
                                       fenceColumn: source.scalarColumn(line: line, byteColumn: block.startColumn),
                                       source: source)
        if info == "http" {
            if step.hasExchange {
                report(.malformedHTTP, at: content.fenceLocation, "step \(step.number) has a second http block",
                       hint: "a step sends one request; drive other branches with blocks nested in their alternates")
                return true
            }
            let request = HTTPBlockParser(block: content).parse(diagnostics: &diagnostics)
            step.exchange = request.map { Exchange(request: $0) } ?? Exchange(
                request: RequestTemplate(method: "", target: "", location: content.fenceLocation))
            if request == nil { step.exchange = nil; pendingInvalidHTTP.insert(step.number) }
        } else if info == "expect" {
            let expectation = ExpectBlockParser(block: content).parse(diagnostics: &diagnostics)
            if !step.hasExchange {
                if !pendingInvalidHTTP.contains(step.number) {
                    pendingExpect.append((step.number, content.fenceLocation, expectation))
                }
            } else if step.exchange?.expectation != nil {
                report(.malformedExpect, at: content.fenceLocation, "step \(step.number) has a second expect block")
            } else {
                step.exchange?.expectation = expectation
            }
        } else {
            return false
        }
        return true
    }

    /// An expect block written before its http block still belongs to it.
    mutating func settlePendingExpect(for step: inout Step) {
        for pending in pendingExpect where pending.step == step.number {
            if step.hasExchange, step.exchange?.expectation == nil {
                step.exchange?.expectation = pending.expectation
            } else if !step.hasExchange {
                let branchesSend = step.alternates.contains { $0.request != nil }
                if !branchesSend {
                    report(.expectWithoutHTTP, at: pending.location, "expect block in step \(step.number) has no http block to check",
                           hint: "add the request as a fenced `http` block in the same step")
                }
            }
        }
        pendingExpect.removeAll { $0.step == step.number }
        pendingInvalidHTTP.remove(step.number)
    }


    struct ActorsLine {
        var from: String
        var to: String
        var location: SourceLocation
        var fromLocation: SourceLocation
        var toLocation: SourceLocation
    }

    /// `from → to` (or `->`), alone in a paragraph.
    func parseActorsLine(_ block: CmarkNode, offset: Int) -> ActorsLine? {
        guard block.startLine == block.endLine else { return nil }
        let line = block.startLine + offset
        let start = source.scalarColumn(line: line, byteColumn: block.startColumn) - 1
        let bytes = source.lineBytes(line, fromColumn: start + 1)
        guard !bytes.isEmpty else { return nil }
        let content = String(decoding: bytes, as: UTF8.self).trimmingTrailingWhitespace()
        let arrow: String
        if content.utf8Contains("→") { arrow = "→" } else if content.utf8Contains("->") { arrow = "->" } else { return nil }
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
    mutating func parseAlternates(_ list: CmarkNode, offset: Int) -> [Alternate]? {
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
        guard !outcome.isEmpty, !outcome.utf8Contains(byte: 0x20),
              outcome.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else { return nil }
        return .end(Outcome(outcome.lowercased()))
    }
}
