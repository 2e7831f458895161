import FlowModel
import FlowParser

struct MermaidMessage {
    var from: String
    var to: String
    var text: String
    var dashed: Bool
    var line: Int
}

struct MermaidDiagram {
    var participants: [(id: String, name: String, line: Int)] = []
    /// Messages grouped by `%% Step N` markers (group number nil before any marker).
    var groups: [(number: Int?, messages: [MermaidMessage])] = []
    var hasStepMarkers = false
    var unmapped: [(line: Int, text: String)] = []
}

extension ImportSession {
    func parseMermaid(_ text: String, firstLine: Int) -> MermaidDiagram {
        var diagram = MermaidDiagram()
        var currentNumber: Int?
        var current: [MermaidMessage] = []
        func close() {
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
                    close()
                    currentNumber = number
                    diagram.hasStepMarkers = true
                }
                continue
            }
            let words = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
            if words.first == "participant" || words.first == "actor", words.count == 2 {
                let parts = words[1].components(separatedByString: " as ")
                let id = parts[0].trimmingCharacters()
                diagram.participants.append((id, parts.count > 1 ? parts[1].trimmingCharacters() : id, line))
                continue
            }
            if ["alt", "else", "end", "opt", "loop", "par", "and", "rect", "critical", "break"].contains(words.first ?? "") { continue }
            if let message = mermaidMessage(trimmed, line: line) {
                current.append(message)
                continue
            }
            if ["Note", "note", "title", "autonumber"].contains(words.first ?? "") { continue }
            diagram.unmapped.append((line, trimmed))
        }
        close()
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

    /// Step index → the diagram message that shows it: by order when the counts agree, else by
    /// `%% Step N`.
    mutating func messagesByStep(_ steps: [LegacyStep], diagram: MermaidDiagram?) -> [Int: MermaidMessage] {
        guard let diagram else {
            unmapped(1, "no Mermaid sequenceDiagram: the actors of each step are unknown", hint: "write `from → to` under each step heading")
            return [:]
        }
        let groups = diagram.groups.filter { !$0.messages.isEmpty }
        var messageForStep: [Int: MermaidMessage] = [:]
        if groups.count == steps.count {
            for (index, group) in groups.enumerated() { messageForStep[index] = group.messages[0] }
        } else {
            for (index, step) in steps.enumerated() {
                if let group = groups.first(where: { $0.number == step.number }) { messageForStep[index] = group.messages[0] }
            }
            note(steps.first?.line ?? 1, "the diagram has \(groups.count) step groups for \(steps.count) steps: actors matched by step number")
        }
        return messageForStep
    }
}
