import FlowModel
import FlowParser

/// What the block walk of a legacy document found, before anything is inferred.
struct LegacyScan {
    var title: String?
    var summary: String?
    var tags: [String] = []
    var environments: [String] = []
    var sections: [ProseSection] = []
    var steps: [LegacyStep] = []
    var diagram: MermaidDiagram?
    var routes: [LegacyRoute] = []
    var stepsHeading: String?
}

struct LegacyRoute {
    var method: String
    var path: String
    var description: String
    var line: Int
}

extension ImportSession {
    /// Walks the top-level blocks once: the YAML header, headings (which open prose sections),
    /// the Mermaid diagram, the API table, the step list and the "Label:" lists after it.
    mutating func scanBlocks(_ blocks: [CmarkNode]) -> LegacyScan {
        var scan = LegacyScan()
        var heading = "", level = 0
        var pending: [CmarkNode] = []
        var seenSteps = false
        func flush(_ session: inout ImportSession, _ scan: inout LegacyScan) {
            session.flushSection(heading: heading, level: level, blocks: pending, afterSteps: seenSteps, into: &scan)
            pending = []
        }
        for (index, block) in blocks.enumerated() {
            let line = block.startLine
            if index == 0, block.type == "code_block", ["yaml", "yml"].contains((block.fenceInfo ?? "").trimmingCharacters().lowercased()) {
                parseHeader(block.literal ?? "", firstLine: line + 1, into: &scan)
                continue
            }
            if block.type == "heading", block.headingLevel <= 2 {
                flush(&self, &scan)
                heading = block.plainText.trimmingCharacters().trimmingTrailingColon()
                level = 2
                if scan.title == nil, block.headingLevel == 1 { scan.title = heading }
                continue
            }
            if block.type == "code_block", (block.fenceInfo ?? "").lowercased().hasPrefix("mermaid"), (block.literal ?? "").contains("sequenceDiagram") {
                scan.diagram = parseMermaid(block.literal ?? "", firstLine: line + 1)
                note(line, "the Mermaid diagram is not copied: the site draws the sequence diagram from the steps")
                continue
            }
            if block.type == "table", let routes = apiTable(block) { scan.routes += routes }
            if block.type == "list", let found = stepItems(in: block), !found.steps.isEmpty {
                scan.steps += found.steps
                if scan.stepsHeading == nil, level > 0 { scan.stepsHeading = heading }
                pending += found.intro
                flush(&self, &scan)
                seenSteps = true
                labelledSections(found.others, into: &scan)
                heading = ""
                level = 0
                continue
            }
            if seenSteps, level == 0, block.type == "list" {
                // Lists after the steps in the same section: "Label:" items become sections.
                labelledSections(block.children, into: &scan)
                continue
            }
            scan.environments += environmentsMentioned(in: block)
            pending.append(block)
        }
        flush(&self, &scan)
        return scan
    }

    private func flushSection(heading: String, level: Int, blocks: [CmarkNode], afterSteps: Bool, into scan: inout LegacyScan) {
        // A heading with nothing under it makes no section.
        guard !blocks.isEmpty else { return }
        scan.sections.append(ProseSection(heading: heading, level: level, body: markdown(blocks), placement: afterSteps ? .afterSteps : .beforeSteps))
    }

    /// List items after the steps: an item opening with `Label:` becomes a section of that
    /// name, any other a "Notes" section.
    private func labelledSections(_ items: [CmarkNode], into scan: inout LegacyScan) {
        for item in items {
            let children = item.children
            let label = children.first?.plainText.trimmingCharacters() ?? ""
            if children.first?.type == "paragraph", label.hasSuffix(":"), children.count > 1 {
                scan.sections.append(ProseSection(heading: label.trimmingTrailingColon(), level: 2,
                                                  body: markdown(Array(children.dropFirst())), placement: .afterSteps))
            } else {
                scan.sections.append(ProseSection(heading: "Notes", level: 2, body: markdown(children), placement: .afterSteps))
            }
        }
    }

    func apiTable(_ table: CmarkNode) -> [LegacyRoute]? {
        let rows = table.children
        guard let header = rows.first else { return nil }
        let names = header.children.map { $0.plainText.trimmingCharacters().lowercased() }
        guard let endpoint = names.firstIndex(where: { $0.contains("endpoint") || $0 == "path" }),
              let method = names.firstIndex(where: { $0.contains("method") }) else { return nil }
        let description = names.firstIndex { $0.contains("description") || $0.contains("mô tả") || $0.contains("açıklama") }
        var routes: [LegacyRoute] = []
        for row in rows.dropFirst() {
            let cells = row.children.map { $0.plainText.trimmingCharacters() }
            guard endpoint < cells.count, method < cells.count else { continue }
            let path = cells[endpoint].trimmingBackticks()
            guard path.hasPrefix("/") else { continue }
            routes.append(LegacyRoute(method: cells[method].uppercased(), path: path,
                                      description: description.flatMap { $0 < cells.count ? cells[$0] : nil } ?? "", line: row.startLine))
        }
        return routes
    }

    func environmentsMentioned(in block: CmarkNode) -> [String] {
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
}
