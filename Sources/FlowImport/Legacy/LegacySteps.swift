import FlowModel
import FlowParser

extension ImportSession {
    static let stepWords = ["bước", "step", "adım"]
    static let branchWords = ["nếu", "if", "eğer", "when", "khi"]

    /// Finds `**Bước N:**` items anywhere inside a list (one nesting level of wrapper items
    /// allowed). Returns the steps, the wrapper's intro blocks and sibling non-step items.
    func stepItems(in list: CmarkNode) -> (steps: [LegacyStep], intro: [CmarkNode], others: [CmarkNode])? {
        var steps: [LegacyStep] = []
        var intro: [CmarkNode] = []
        var others: [CmarkNode] = []
        func scan(_ list: CmarkNode, depth: Int) -> Bool {
            var found = false
            var siblings: [CmarkNode] = []
            for item in list.children where item.type == "item" {
                if let step = legacyStep(item) {
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
                    if scan(child, depth: depth + 1) {
                        intro += item.children.filter { $0.type != "list" }
                        return true
                    }
                }
            }
            return false
        }
        return scan(list, depth: 0) ? (steps, intro, others) : nil
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
        return LegacyStep(number: number, text: text, line: item.startLine, branches: branches(of: item))
    }

    /// `Nếu …: consequence` items of the step's nested lists.
    private func branches(of item: CmarkNode) -> [(condition: String, consequence: String, line: Int)] {
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
        return branches
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

    static let endWords = ["kết thúc", "end of flow", "the flow ends", "akış sona", "bitir", "sonlandır"]
    static let retryWords = ["lại", "again", "retry", "reload", "tekrar"]
    static let successWords = ["thành công", "success", "succeeded", "başarılı"]
    static let cancelWords = ["từ chối", "deny", "denies", "cancel", "hủy", "reddet", "iptal"]

    /// Steps that only say the flow ends become end outcomes of the branches, not states.
    mutating func droppingEndOnlySteps(_ steps: [LegacyStep]) -> [LegacyStep] {
        var kept = steps
        kept.removeAll { step in
            let lowered = step.text.lowercased()
            let endOnly = step.branches.isEmpty && lowered.count < 60 && Self.endWords.contains { lowered.contains($0) }
            if endOnly {
                note(step.line, "'\(step.text)' only says the flow ends: mapped to the end outcomes of the branches, not to a step")
            }
            return endOnly
        }
        return kept
    }

    /// Branch targets by step index: consequences repeated verbatim share a target, so later
    /// steps are resolved first. Every inference is reported at the branch's line.
    mutating func resolveBranches(_ steps: [LegacyStep]) -> [Int: [Alternate]] {
        var targetByConsequence: [String: Target] = [:]
        var resolved: [Int: [Alternate]] = [:]
        for index in steps.indices.reversed() {
            let step = steps[index]
            let next = index + 1 < steps.count ? steps[index + 1].number : nil
            var alternates: [Alternate] = []
            for branch in step.branches {
                let (target, reason) = inferTarget(branch.condition, branch.consequence, step: step.number, next: next, known: targetByConsequence)
                targetByConsequence[normalised(branch.consequence)] = targetByConsequence[normalised(branch.consequence)] ?? target
                alternates.append(Alternate(label: branch.condition, target: target, location: location(branch.line),
                                            note: branch.consequence.isEmpty ? nil : Markdown(source: branch.consequence, location: location(branch.line))))
                note(branch.line, "branch '\(branch.condition)' of step \(step.number) → \(target): \(reason)",
                     hint: "check the target; the legacy format does not say where a branch goes")
            }
            resolved[index] = alternates
        }
        return resolved
    }

    private func inferTarget(_ condition: String, _ consequence: String, step: Int, next: Int?, known: [String: Target]) -> (Target, String) {
        let text = (condition + " " + consequence).lowercased()
        let conditionText = condition.lowercased()
        let ends = Self.endWords.contains { consequence.lowercased().contains($0) }
        guard let next, !ends else {
            if Self.cancelWords.contains(where: { conditionText.contains($0) }) { return (.end(.cancelled), "the branch ends the flow and is a refusal") }
            if Self.successWords.contains(where: { conditionText.contains($0) }) { return (.end(.success), "the branch ends the flow on success") }
            if !ends { return (.end(.success), "the last step's branch that does not say it fails ends with success") }
            return (.end(.failure), "the branch ends the flow")
        }
        if Self.retryWords.contains(where: { consequence.lowercased().contains($0) }) && !text.contains("thành công") {
            return (.step(step), "the branch repeats the step")
        }
        if let target = known[normalised(consequence)] {
            return (target, "its consequence is worded exactly like a later branch's")
        }
        return (.step(next), "the branch continues with the next step")
    }

    private func normalised(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    /// First sentence as the title (when short enough), the rest as prose.
    func splitTitle(_ text: String) -> (String, String) {
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
}
