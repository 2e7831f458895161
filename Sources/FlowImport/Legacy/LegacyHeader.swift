import FlowModel
import FlowParser
import Yams

extension ImportSession {
    /// The fenced YAML header, read with Yams (bounded like front matter first). Known keys in
    /// Vietnamese, English or Turkish map to title, summary and tags; everything else is
    /// reported at its line. Lines of dashes (a `---`/`----` the seeds put inside the fence) are
    /// document markers, not content, and are blanked before Yams reads the rest.
    mutating func parseHeader(_ yaml: String, firstLine: Int, into scan: inout LegacyScan) {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line).trimmingCharacters().allSatisfy { $0 == "-" } ? "" : String(line)
        }
        let text = lines.joined(separator: "\n")
        let nesting = maximumNesting(of: text)
        if nesting.depth > 64 {
            unmapped(firstLine + nesting.line - 1, "header nests deeper than 64 levels: not read")
            return
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text, .basic, .default, .utf8)
        } catch let error as YamlError {
            let (mark, problem) = FrontMatterParser.describe(error)
            unmapped(firstLine + (mark?.line ?? 1) - 1, "header is not YAML (\(problem)): not mapped",
                     hint: "set title, summary and tags in the front matter by hand")
            return
        } catch {
            unmapped(firstLine, "header is not YAML: not mapped")
            return
        }
        guard let mapping = root?.mapping else {
            if root != nil { unmapped(firstLine, "header is not a YAML mapping: not mapped") }
            return
        }
        for (key, value) in mapping {
            let name = key.string?.trimmingCharacters() ?? ""
            let line = firstLine + (key.mark?.line ?? 1) - 1
            switch name.lowercased() {
            case "tiêu đề", "title", "başlık":
                scan.title = value.string?.trimmingCharacters().trimmingTrailingDot()
            case "mô tả", "description", "summary", "açıklama":
                scan.summary = value.string?.trimmingCharacters()
            case "tags", "etiketler":
                headerTags(value, firstLine: firstLine, into: &scan)
            default:
                unmapped(line, "header key '\(name)' not mapped")
            }
        }
    }

    /// `- feature:x` (a scalar) and `- created_by: x` (a one-key mapping) are both tags.
    private mutating func headerTags(_ node: Node, firstLine: Int, into scan: inout LegacyScan) {
        for item in node.sequence ?? [] {
            let line = firstLine + (item.mark?.line ?? 1) - 1
            let parts: [String]
            if let text = item.string {
                parts = text.split(separator: ":", maxSplits: 1).map { String($0).trimmingCharacters() }
            } else if let pair = item.mapping?.first {
                parts = [pair.key.string ?? "", pair.value.string ?? ""].map { $0.trimmingCharacters() }
            } else {
                unmapped(line, "header tag not mapped")
                continue
            }
            let item = parts.joined(separator: ":")
            switch parts.first?.lowercased() {
            case "feature", "domain", "tag", "area":
                if parts.count == 2 { scan.tags.append(parts[1]) }
            case "type":
                note(line, "header tag '\(item)' dropped: every spec is a flow document")
            default:
                unmapped(line, "header tag '\(item)' not mapped", hint: "authorship and dates live in git history")
            }
        }
    }
}
