import FlowModel

/// A Graphviz state diagram: one node per step, an edge per transition (labelled with the
/// alternate's condition), a start point and one terminal node per outcome.
public enum DotExporter {
    public static func export(_ flow: Flow) -> String {
        let machine = StateMachine(flow: flow)
        var lines = [
            "digraph \(quote(flow.id)) {",
            "  label=\(quote(flow.title));",
            "  labelloc=t;",
            "  rankdir=TB;",
            "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
            "  start [shape=point, width=0.15];",
        ]
        for number in machine.states {
            let step = flow.step(number)!
            lines.append("  s\(number) [label=\(quote("\(number). \(step.title)")), URL=\(quote("#step-\(number)"))];")
        }
        for outcome in machine.outcomes {
            lines.append("  \(endNode(outcome)) [shape=doublecircle, label=\(quote(outcome.rawValue))];")
        }
        if let start = machine.start { lines.append("  start -> s\(start);") }
        for transition in machine.allTransitions {
            let target: String
            switch transition.target {
            case .step(let number): target = "s\(number)"
            case .end(let outcome): target = endNode(outcome)
            }
            let label = transition.label.map { " [label=\(quote($0))]" } ?? ""
            lines.append("  s\(transition.from) -> \(target)\(label);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static func endNode(_ outcome: Outcome) -> String {
        "end_" + String(outcome.rawValue.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// A DOT double-quoted string.
    static func quote(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": break
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
