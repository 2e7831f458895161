import FlowModel

/// A Mermaid `sequenceDiagram` of a flow: participants in declaration order, one numbered
/// message per step (dashed when it answers an earlier message), `alt/else` frames from the
/// alternates with the target of each branch as a note.
public enum MermaidExporter {
    public static func export(_ flow: Flow) -> String {
        var lines = ["sequenceDiagram", "    title \(text(flow.title))"]
        for actor in flow.actors {
            lines.append("    participant \(identifier(actor.id)) as \(text(actor.name))")
        }
        for step in flow.steps {
            let from = identifier(step.from.isEmpty ? "unknown" : step.from)
            let to = identifier(step.to.isEmpty ? "unknown" : step.to)
            let arrow = DiagramConventions.isReturn(step, in: flow) ? "-->>" : "->>"
            let message = "    \(from)\(arrow)\(to): \(step.number). \(text(step.title))"
            if step.alternates.isEmpty {
                lines.append(message)
                continue
            }
            lines.append(message)
            for (index, alternate) in step.alternates.enumerated() {
                lines.append("    \(index == 0 ? "alt" : "else") \(text(alternate.label))")
                lines.append("        Note over \(from),\(to): → \(text(alternate.target.description))")
            }
            lines.append("    end")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Mermaid ids: letters, digits and `_` only.
    static func identifier(_ id: String) -> String {
        let mapped = String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        return mapped.first?.isNumber == true ? "_" + mapped : mapped
    }

    /// Message text: Mermaid reads `;` and `#` specially and ends a message at a newline.
    static func text(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "#": out += "#35;"
            case ";": out += "#59;"
            case "\n", "\r": out += " "
            default: out.append(character)
            }
        }
        return out
    }
}

/// Drawing conventions shared by every diagram flowspec produces.
public enum DiagramConventions {
    /// A step is drawn as a return (dashed) when an earlier step went the opposite way and the
    /// sender is not a person: the provider answering the app, the backend answering the client.
    public static func isReturn(_ step: Step, in flow: Flow) -> Bool {
        guard !step.isInternal, flow.role(of: step.from) != .person else { return false }
        for earlier in flow.steps {
            if earlier.number == step.number && earlier.location == step.location { break }
            if earlier.from == step.to && earlier.to == step.from { return true }
        }
        return false
    }
}
