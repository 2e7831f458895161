import FlowModel
import Foundation

/// What `flowspec import` produced: a flow in the new model (locations point into the legacy
/// file) and a report of everything that could not be mapped, or was guessed, with lines.
public struct ImportResult: Sendable {
    public var flow: Flow?
    public var report: [Diagnostic]
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
        if let problem = source.unusableReason() {
            return ImportResult(flow: nil, report: [problem.diagnostic(in: source)])
        }
        var session = ImportSession(source: source, explicitID: id, explicitLang: lang)
        return session.run()
    }
}

private struct LegacyStep {
    var number: Int
    var text: String
    var line: Int
    var branches: [(condition: String, consequence: String, line: Int)]
}

private struct MermaidMessage {
    var from: String
    var to: String
    var text: String
    var dashed: Bool
    var line: Int
}

private struct MermaidDiagram {
    var participants: [(id: String, name: String, line: Int)] = []
    /// Messages grouped by `%% Step N` markers (group number nil before any marker).
    var groups: [(number: Int?, messages: [MermaidMessage])] = []
    var hasStepMarkers = false
    var unmapped: [(line: Int, text: String)] = []
}

private struct ImportSession {
    let source: SourceText
    let explicitID: String?
    let explicitLang: String?
    var report: [Diagnostic] = []

    init(source: SourceText, explicitID: String?, explicitLang: String?) {
        self.source = source
        self.explicitID = explicitID
        self.explicitLang = explicitLang
    }

    private func location(_ line: Int, _ column: Int = 1) -> SourceLocation {
        source.location(line: max(line, 1), column: column)
    }

    private mutating func note(_ line: Int, _ message: String, hint: String? = nil) {
        report.append(Diagnostic(.legacyUnmapped, severity: .note, location: location(line), message: message, hint: hint))
    }

    private mutating func unmapped(_ line: Int, _ message: String, hint: String? = nil) {
        report.append(Diagnostic(.legacyUnmapped, severity: .warning, location: location(line), message: message, hint: hint))
    }

    mutating func run() -> ImportResult {
        // The same work bounds as a spec, before cmark reads the document.
        if let bound = InputBounds.check(source) { return ImportResult(flow: nil, report: [bound]) }
        let document = CmarkDocument(markdown: source.bytes[...])
        var title: String?
        var summary: String?
        var tags: [String] = []
        var environments: [String] = []
        var sections: [ProseSection] = []
        var legacySteps: [LegacyStep] = []
        var diagram: MermaidDiagram?
        var apiRoutes: [(method: String, path: String, description: String, line: Int)] = []
        var stepsHeading: String?

        var currentHeading = ""
        var currentLevel = 0
        var pending: [CmarkNode] = []
        var seenSteps = false

        func flush(_ session: inout ImportSession, heading: String, level: Int, blocks: [CmarkNode], placement: ProseSection.Placement) {
            guard !blocks.isEmpty || level > 0 else { return }
            let markdown = session.markdown(blocks)
            guard !markdown.isEmpty || !blocks.isEmpty else { return }
            sections.append(ProseSection(heading: heading, level: level, body: markdown, placement: placement))
        }

        for (index, block) in document.root.children.enumerated() {
            let line = block.startLine
            if index == 0, block.type == "code_block", ["yaml", "yml"].contains((block.fenceInfo ?? "").trimmingCharacters().lowercased()) {
                parseHeader(block.literal ?? "", firstLine: line + 1, title: &title, summary: &summary, tags: &tags)
                continue
            }
            if block.type == "heading", block.headingLevel <= 2 {
                flush(&self, heading: currentHeading, level: currentLevel, blocks: pending, placement: seenSteps ? .afterSteps : .beforeSteps)
                pending = []
                currentHeading = block.plainText.trimmingCharacters().trimmingTrailingColon()
                currentLevel = 2
                if title == nil, block.headingLevel == 1 { title = currentHeading }
                continue
            }
            if block.type == "code_block", (block.fenceInfo ?? "").lowercased().hasPrefix("mermaid"),
               (block.literal ?? "").contains("sequenceDiagram") {
                diagram = parseMermaid(block.literal ?? "", firstLine: line + 1)
                note(line, "the Mermaid diagram is not copied: the site draws the sequence diagram from the steps")
                continue
            }
            if block.type == "table", let routes = apiTable(block) {
                apiRoutes += routes
            }
            if block.type == "list", let found = stepItems(in: block), !found.steps.isEmpty {
                legacySteps += found.steps
                if stepsHeading == nil, currentLevel > 0 { stepsHeading = currentHeading }
                if !found.intro.isEmpty { pending += found.intro }
                flush(&self, heading: currentHeading, level: currentLevel, blocks: pending, placement: seenSteps ? .afterSteps : .beforeSteps)
                pending = []
                seenSteps = true
                for item in found.others {
                    let children = item.children
                    let first = children.first
                    let label = first?.plainText.trimmingCharacters() ?? ""
                    if first?.type == "paragraph", label.hasSuffix(":"), children.count > 1 {
                        sections.append(ProseSection(heading: label.trimmingTrailingColon(), level: 2,
                                                     body: markdown(Array(children.dropFirst())), placement: .afterSteps))
                    } else {
                        sections.append(ProseSection(heading: "Notes", level: 2, body: markdown(children), placement: .afterSteps))
                    }
                }
                currentHeading = ""
                currentLevel = 0
                continue
            }
            if seenSteps, currentLevel == 0, block.type == "list" {
                // Lists after the steps in the same section: "Label:" items become sections.
                for item in block.children {
                    let children = item.children
                    let label = children.first?.plainText.trimmingCharacters() ?? ""
                    if children.first?.type == "paragraph", label.hasSuffix(":"), children.count > 1 {
                        sections.append(ProseSection(heading: label.trimmingTrailingColon(), level: 2,
                                                     body: markdown(Array(children.dropFirst())), placement: .afterSteps))
                    } else {
                        sections.append(ProseSection(heading: "Notes", level: 2, body: markdown(children), placement: .afterSteps))
                    }
                }
                continue
            }
            environments += environmentsMentioned(in: block)
            pending.append(block)
        }
        flush(&self, heading: currentHeading, level: currentLevel, blocks: pending, placement: seenSteps ? .afterSteps : .beforeSteps)

        guard !legacySteps.isEmpty else {
            report.append(Diagnostic(.legacyUnmapped, severity: .error, location: .start(of: source.file),
                                     message: "no steps found: expected a list of `**Bước N:**` (or `**Step N:**`, `**Adım N:**`) items"))
            return ImportResult(flow: nil, report: report)
        }

        let lang = explicitLang ?? detectLanguage()
        let flowTitle = title ?? "Imported flow"
        if title == nil { unmapped(1, "no title in the header; used '\(flowTitle)'", hint: "set `title:` in the front matter") }
        let flowID = explicitID ?? slug(flowTitle)

        // Steps that only say the flow ends become end outcomes, not states.
        var steps = legacySteps
        steps.removeAll { step in
            let endOnly = step.branches.isEmpty && isEndOnly(step.text)
            if endOnly {
                note(step.line, "'\(step.text)' only says the flow ends: mapped to the end outcomes of the branches, not to a step")
            }
            return endOnly
        }

        // Actors from the diagram's participants.
        var actors: [Actor] = []
        var actorForParticipant: [String: String] = [:]
        for participant in diagram?.participants ?? [] {
            let id = actorID(participant.id)
            actorForParticipant[participant.id] = id
            let role = inferRole(id: participant.id, name: participant.name)
            if !actors.contains(where: { $0.id == id }) {
                actors.append(Actor(id: id, name: participant.name, role: role, location: location(participant.line)))
            }
        }
        let providerName = actors.first { $0.role == .provider && $0.name.lowercased().contains("apple") } != nil ? "apple" : nil

        // Step → diagram message, by order when the counts agree, else by `%% Step N`.
        let groups = (diagram?.groups ?? []).filter { !$0.messages.isEmpty }
        var messageForStep: [Int: MermaidMessage] = [:]
        if diagram != nil {
            if groups.count == steps.count {
                for (index, group) in groups.enumerated() { messageForStep[index] = group.messages[0] }
            } else {
                for (index, step) in steps.enumerated() {
                    if let group = groups.first(where: { $0.number == step.number }) { messageForStep[index] = group.messages[0] }
                }
                note(steps.first?.line ?? 1, "the diagram has \(groups.count) step groups for \(steps.count) steps: actors matched by step number")
            }
        } else {
            unmapped(1, "no Mermaid sequenceDiagram: the actors of each step are unknown", hint: "write `from → to` under each step heading")
        }

        // Resolve branch targets: consequences repeated verbatim share a target; resolve later steps first.
        var flowSteps: [Step] = []
        var targetByConsequence: [String: Target] = [:]
        var resolved: [Int: [Alternate]] = [:]
        for index in steps.indices.reversed() {
            let step = steps[index]
            let next = index + 1 < steps.count ? steps[index + 1].number : nil
            var alternates: [Alternate] = []
            for branch in step.branches {
                let (target, reason) = inferTarget(branch.condition, branch.consequence, step: step.number, next: next,
                                                   known: targetByConsequence)
                targetByConsequence[normalised(branch.consequence)] = targetByConsequence[normalised(branch.consequence)] ?? target
                alternates.append(Alternate(label: branch.condition, target: target, location: location(branch.line),
                                            note: branch.consequence.isEmpty ? nil : Markdown(source: branch.consequence, location: location(branch.line))))
                note(branch.line, "branch '\(branch.condition)' of step \(step.number) → \(target): \(reason)",
                     hint: "check the target; the legacy format does not say where a branch goes")
            }
            resolved[index] = alternates
        }
        for (index, step) in steps.enumerated() {
            var (title, prose) = splitTitle(step.text)
            let message = messageForStep[index]
            if title.isEmpty, let message {
                title = message.text
                note(step.line, "step \(step.number) has no description; its title is the diagram's message '\(message.text)'")
            }
            var from = "", to = ""
            if let message {
                from = actorForParticipant[message.from] ?? actorID(message.from)
                to = actorForParticipant[message.to] ?? actorID(message.to)
            } else if diagram != nil {
                unmapped(step.line, "step \(step.number) has no message in the diagram: its actors are unknown",
                         hint: "write `from → to` under the step heading")
            }
            flowSteps.append(Step(number: step.number, title: title, from: from, to: to, alternates: resolved[index] ?? [],
                                  prose: Markdown(source: prose, location: location(step.line)),
                                  location: location(step.line)))
        }

        // Backend routes from an API table, matched to client → backend steps by wording.
        for route in apiRoutes {
            var best: (index: Int, score: Int)?
            for (index, step) in flowSteps.enumerated() {
                guard let fromRole = actors.first(where: { $0.id == step.from })?.role,
                      let toRole = actors.first(where: { $0.id == step.to })?.role,
                      toRole == .backend, fromRole == .client || fromRole == .person, flowSteps[index].exchange == nil else { continue }
                let score = words(route.description).intersection(words(step.title + " " + step.prose.source)).count
                if score >= 2, score > (best?.score ?? 0) { best = (index, score) }
            }
            if let best {
                flowSteps[best.index].exchange = Exchange(request: RequestTemplate(method: route.method, target: route.path,
                                                                                   location: location(route.line)))
                note(route.line, "\(route.method) \(route.path) from the API table is the request of step \(flowSteps[best.index].number)",
                     hint: "its body and the expected answer are not in the source: add them to the http and expect blocks")
            } else {
                unmapped(route.line, "\(route.method) \(route.path) from the API table matches no client → backend step")
            }
        }
        for step in flowSteps where step.exchange == nil {
            let fromRole = actors.first { $0.id == step.from }?.role
            if actors.first(where: { $0.id == step.to })?.role == .backend, fromRole == .client || fromRole == .person {
                unmapped(step.location.line, "step \(step.number) sends to the backend, but the source names no endpoint for it",
                         hint: "add an http block once the endpoint is known")
            }
        }
        for item in diagram?.unmapped ?? [] {
            note(item.line, "diagram line not mapped: \(item.text)")
        }

        let flow = Flow(file: source.file, id: flowID, title: flowTitle, summary: summary, lang: lang, tags: tags,
                        environments: Array(NSOrderedSet(array: environments)) as? [String] ?? environments,
                        provider: providerName, actors: actors, steps: flowSteps, sections: sections,
                        stepsHeading: stepsHeading, location: .start(of: source.file))
        return ImportResult(flow: flow, report: report.sortedForOutput())
    }

    // MARK: Header

    private mutating func parseHeader(_ yaml: String, firstLine: Int, title: inout String?, summary: inout String?, tags: inout [String]) {
        var inTags = false
        for (offset, raw) in yaml.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = firstLine + offset
            let text = String(raw).trimmingCharacters()
            if text.isEmpty || text.allSatisfy({ $0 == "-" }) { continue }
            if text.hasPrefix("- ") {
                guard inTags else { unmapped(line, "header line not mapped: \(text)"); continue }
                let item = String(text.dropFirst(2)).trimmingCharacters()
                let parts = item.split(separator: ":", maxSplits: 1).map { String($0).trimmingCharacters() }
                switch parts.first?.lowercased() {
                case "feature", "domain", "tag", "area":
                    if parts.count == 2 { tags.append(parts[1]) }
                case "type":
                    note(line, "header tag '\(item)' dropped: every spec is a flow document")
                default:
                    unmapped(line, "header tag '\(item)' not mapped", hint: "authorship and dates live in git history")
                }
                continue
            }
            inTags = false
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            guard parts.count == 2 else { unmapped(line, "header line not mapped: \(text)"); continue }
            switch parts[0].lowercased() {
            case "tiêu đề", "title", "başlık":
                title = parts[1].trimmingTrailingDot()
            case "mô tả", "description", "summary", "açıklama":
                summary = parts[1]
            case "tags", "etiketler":
                inTags = true
            default:
                unmapped(line, "header key '\(parts[0])' not mapped")
            }
        }
    }

    // MARK: Steps

    private static let stepWords = ["bước", "step", "adım"]
    private static let branchWords = ["nếu", "if", "eğer", "when", "khi"]

    /// Finds `**Bước N:**` items anywhere inside a list (one nesting level of wrapper items
    /// allowed). Returns the steps, the wrapper's intro blocks and sibling non-step items.
    private mutating func stepItems(in list: CmarkNode) -> (steps: [LegacyStep], intro: [CmarkNode], others: [CmarkNode])? {
        var steps: [LegacyStep] = []
        var intro: [CmarkNode] = []
        var others: [CmarkNode] = []
        func scan(_ list: CmarkNode, _ session: inout ImportSession, depth: Int) -> Bool {
            var found = false
            var siblings: [CmarkNode] = []
            for item in list.children where item.type == "item" {
                if let step = session.legacyStep(item) {
                    steps.append(step)
                    found = true
                } else {
                    siblings.append(item)
                }
            }
            if found {
                others += siblings
                return true
            }
            guard depth < 3 else { return false }
            for item in siblings {
                for child in item.children where child.type == "list" {
                    if scan(child, &session, depth: depth + 1) {
                        intro += item.children.filter { $0.type != "list" }
                        return true
                    }
                }
            }
            return false
        }
        return scan(list, &self, depth: 0) ? (steps, intro, others) : nil
    }

    private func legacyStep(_ item: CmarkNode) -> LegacyStep? {
        guard let paragraph = item.firstChild, paragraph.type == "paragraph",
              let strong = paragraph.firstChild, strong.type == "strong" else { return nil }
        let label = strong.plainText.trimmingCharacters().trimmingTrailingColon()
        let words = label.split(separator: " ")
        guard words.count == 2, Self.stepWords.contains(words[0].lowercased()), let number = Int(words[1]), number > 0, number < 100_000
        else { return nil }
        var text = ""
        var node = strong.next
        while let current = node {
            text += current.type == "softbreak" || current.type == "linebreak" ? " " : rawInline(current)
            node = current.next
        }
        text = text.trimmingCharacters()
        if text.hasPrefix(":") { text = String(text.dropFirst()).trimmingCharacters() }
        var branches: [(String, String, Int)] = []
        for child in item.children.dropFirst() where child.type == "list" {
            for branchItem in child.children {
                let raw = branchItem.firstChild?.plainText.trimmingCharacters() ?? ""
                guard let colon = raw.firstIndex(of: ":") else { continue }
                var condition = String(raw[..<colon]).trimmingCharacters()
                let first = condition.split(separator: " ").first.map { $0.lowercased() } ?? ""
                guard Self.branchWords.contains(first) else { continue }
                condition = String(condition.dropFirst(first.count)).trimmingCharacters()
                condition = condition.prefix(1).uppercased() + condition.dropFirst()
                let consequence = String(raw[raw.index(after: colon)...]).trimmingCharacters()
                branches.append((condition, consequence, branchItem.startLine))
            }
        }
        return LegacyStep(number: number, text: text, line: item.startLine, branches: branches)
    }

    /// Inline Markdown of a node, re-serialised from its literal pieces (code keeps backticks).
    private func rawInline(_ node: CmarkNode) -> String {
        switch node.type {
        case "text": return node.literal ?? ""
        case "code": return "`" + (node.literal ?? "") + "`"
        case "strong": return "**" + node.plainText + "**"
        case "emph": return "*" + node.plainText + "*"
        default: return node.plainText
        }
    }

    private func isEndOnly(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.count < 60 && Self.endWords.contains { lowered.contains($0) }
    }

    private static let endWords = ["kết thúc", "end of flow", "the flow ends", "akış sona", "bitir", "sonlandır"]
    private static let retryWords = ["lại", "again", "retry", "reload", "tekrar"]
    private static let successWords = ["thành công", "success", "succeeded", "başarılı"]
    private static let cancelWords = ["từ chối", "deny", "denies", "cancel", "hủy", "reddet", "iptal"]

    private func inferTarget(_ condition: String, _ consequence: String, step: Int, next: Int?, known: [String: Target]) -> (Target, String) {
        let text = (condition + " " + consequence).lowercased()
        let conditionText = condition.lowercased()
        if Self.endWords.contains(where: { consequence.lowercased().contains($0) }) || next == nil {
            if Self.cancelWords.contains(where: { conditionText.contains($0) }) { return (.end(.cancelled), "the branch ends the flow and is a refusal") }
            if Self.successWords.contains(where: { conditionText.contains($0) }) { return (.end(.success), "the branch ends the flow on success") }
            if next == nil, !Self.endWords.contains(where: { consequence.lowercased().contains($0) }) {
                return (.end(.success), "the last step's branch that does not say it fails ends with success")
            }
            return (.end(.failure), "the branch ends the flow")
        }
        if Self.retryWords.contains(where: { consequence.lowercased().contains($0) }) && !text.contains("thành công") {
            return (.step(step), "the branch repeats the step")
        }
        if let target = known[normalised(consequence)] {
            return (target, "its consequence is worded exactly like a later branch's")
        }
        return (.step(next!), "the branch continues with the next step")
    }

    private func normalised(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    /// First sentence as the title (when short enough), the rest as prose.
    private func splitTitle(_ text: String) -> (String, String) {
        let cleaned = text.trimmingCharacters()
        let scalars = Array(cleaned)
        var index = 0
        while index < scalars.count {
            if scalars[index] == ".", index + 1 == scalars.count || scalars[index + 1] == " " {
                let title = String(scalars[..<index]).trimmingCharacters()
                let rest = index + 1 < scalars.count ? String(scalars[(index + 1)...]).trimmingCharacters() : ""
                if title.count <= 160 { return (title, rest) }
                break
            }
            index += 1
        }
        return (cleaned.trimmingTrailingDot(), "")
    }

    // MARK: Mermaid

    private func parseMermaid(_ text: String, firstLine: Int) -> MermaidDiagram {
        var diagram = MermaidDiagram()
        var currentNumber: Int?
        var current: [MermaidMessage] = []
        func close(_ diagram: inout MermaidDiagram) {
            if !current.isEmpty || currentNumber != nil { diagram.groups.append((currentNumber, current)) }
            current = []
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = firstLine + offset
            let trimmed = String(raw).trimmingCharacters()
            if trimmed.isEmpty || trimmed == "sequenceDiagram" { continue }
            if trimmed.hasPrefix("%%") {
                let words = trimmed.dropFirst(2).split(separator: " ")
                if words.count >= 2, Self.stepWords.contains(words[0].lowercased()), let number = Int(words[1]) {
                    close(&diagram)
                    currentNumber = number
                    diagram.hasStepMarkers = true
                }
                continue
            }
            let words = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
            if words.first == "participant" || words.first == "actor", words.count == 2 {
                let parts = words[1].components(separatedByString: " as ")
                let id = parts[0].trimmingCharacters()
                let name = parts.count > 1 ? parts[1].trimmingCharacters() : id
                diagram.participants.append((id, name, line))
                continue
            }
            if ["alt", "else", "end", "opt", "loop", "par", "and", "rect", "critical", "break"].contains(words.first ?? "") {
                continue
            }
            if let message = mermaidMessage(trimmed, line: line) {
                current.append(message)
                continue
            }
            if words.first == "Note" || words.first == "note" || words.first == "title" || words.first == "autonumber" { continue }
            diagram.unmapped.append((line, trimmed))
        }
        close(&diagram)
        return diagram
    }

    private func mermaidMessage(_ text: String, line: Int) -> MermaidMessage? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let head = String(text[..<colon])
        let label = String(text[text.index(after: colon)...]).trimmingCharacters()
        for arrow in ["-->>", "->>", "--x", "-x", "--)", "-)", "-->", "->"] {
            let parts = head.components(separatedByString: arrow)
            if parts.count == 2 {
                let from = parts[0].trimmingCharacters(), to = parts[1].trimmingCharacters().trimmingPrefix("+").trimmingPrefix("-")
                guard !from.isEmpty, !to.isEmpty else { return nil }
                return MermaidMessage(from: from, to: to, text: label, dashed: arrow.hasPrefix("--"), line: line)
            }
        }
        return nil
    }

    // MARK: Helpers

    private func apiTable(_ table: CmarkNode) -> [(String, String, String, Int)]? {
        let rows = table.children
        guard let header = rows.first else { return nil }
        let names = header.children.map { $0.plainText.trimmingCharacters().lowercased() }
        guard let endpoint = names.firstIndex(where: { $0.contains("endpoint") || $0 == "path" }),
              let method = names.firstIndex(where: { $0.contains("method") }) else { return nil }
        let description = names.firstIndex { $0.contains("description") || $0.contains("mô tả") || $0.contains("açıklama") }
        var routes: [(String, String, String, Int)] = []
        for row in rows.dropFirst() {
            let cells = row.children.map { $0.plainText.trimmingCharacters() }
            guard endpoint < cells.count, method < cells.count else { continue }
            let path = cells[endpoint].trimmingBackticks()
            guard path.hasPrefix("/") else { continue }
            routes.append((cells[method].uppercased(), path, description.flatMap { $0 < cells.count ? cells[$0] : nil } ?? "", row.startLine))
        }
        return routes
    }

    private func environmentsMentioned(in block: CmarkNode) -> [String] {
        guard block.type == "list" else { return [] }
        var found: [String] = []
        for item in block.children {
            let text = item.firstChild?.plainText ?? ""
            let lowered = text.lowercased()
            for key in ["môi trường:", "environments:", "environment:", "ortam:", "ortamlar:"] where lowered.hasPrefix(key) {
                found += text.dropFirst(key.count).split(separator: ",").map { String($0).trimmingCharacters().lowercased() }.filter { !$0.isEmpty }
            }
        }
        return found
    }

    private func markdown(_ blocks: [CmarkNode]) -> Markdown {
        guard let first = blocks.first else { return Markdown(source: "", location: .start(of: source.file)) }
        let text = blocks.map { block in
            dedent(source.text(lines: block.startLine, max(block.startLine, block.endLine)), by: block.startColumn - 1)
                .trimmingTrailingWhitespace()
        }.joined(separator: "\n\n")
        return Markdown(source: text, location: location(first.startLine))
    }

    /// Removes up to `count` leading spaces from every line (blocks lifted out of list items).
    private func dedent(_ text: String, by count: Int) -> String {
        guard count > 0 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var slice = Substring(line)
            var removed = 0
            while removed < count, slice.first == " " { slice.removeFirst(); removed += 1 }
            return String(slice)
        }.joined(separator: "\n")
    }

    private func detectLanguage() -> String {
        let text = String(decoding: source.bytes.prefix(200_000), as: UTF8.self).lowercased()
        if text.contains("bước") || text.contains("người dùng") || text.contains("ệ") || text.contains("ạ") { return "vi" }
        if text.contains("adım") || text.contains("ı") || text.contains("ş") || text.contains("ğ") { return "tr" }
        return "en"
    }

    private func actorID(_ participant: String) -> String {
        let lowered = participant.lowercased().map { $0 == "_" || $0 == " " ? "-" : $0 }
        let cleaned = String(lowered.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        return cleaned.isEmpty ? "actor" : cleaned
    }

    private func inferRole(id: String, name: String) -> ActorRole {
        let text = (id + " " + name).lowercased()
        if ["user", "người dùng", "kullanıcı", "customer", "khách"].contains(where: { text.contains($0) }) { return .person }
        if ["apple", "google", "idp", "provider", "identity"].contains(where: { text.contains($0) }) { return .provider }
        if ["backend", "server", "_be", "-be", "api"].contains(where: { text.contains($0) }) { return .backend }
        return .client
    }

    private func words(_ text: String) -> Set<String> {
        let folded = text.lowercased().folding(options: .diacriticInsensitive, locale: nil).replacingOccurrences(of: "đ", with: "d")
        return Set(folded.split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 3 })
    }

    private func slug(_ text: String) -> String {
        let folded = text.lowercased().replacingOccurrences(of: "đ", with: "d").folding(options: .diacriticInsensitive, locale: nil)
        var out = ""
        for character in folded {
            if character.isASCII, character.isLetter || character.isNumber { out.append(character) } else if out.last != "-" { out.append("-") }
        }
        let trimmed = out.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "imported-flow" : String(trimmed.prefix(60)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
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
