import FlowModel

/// Draws a flow as a UML sequence diagram in inline SVG at build time: participants in actor
/// order, one numbered message per step (dashed when it answers an earlier call, a loop when an
/// actor talks to itself), an `alt` frame after every step with alternates, each branch linking
/// to its target step. Every message links to its step (`#step-N`).
///
/// Styling is done by class names only (the page's stylesheet handles light/dark and print), so
/// the markup works under a strict Content-Security-Policy with no inline styles.
struct SequenceDiagram {
    let flow: Flow
    let labels: Labels
    /// Steps whose check verdict is a failure: their arrows are drawn as failing (`msg-fail`),
    /// and the tooltip says so; the arrow links to the step, where the evidence is.
    var failingSteps: Set<Int> = []

    // Geometry (px).
    private let boxHeight = 36
    private let lineHeight = 16
    private let labelMaxWidth = 210
    private let frameTextMaxWidth = 300

    private struct Message {
        let step: Step
        let from: Int
        let to: Int
        let lines: [String]
        let width: Int
        let isReturn: Bool
        var isSelf: Bool { from == to }
    }

    private struct Branch {
        let alternate: Alternate
        let conditionLines: [String]
        let targetText: String
        let href: String?
        let width: Int
    }

    func render() -> String {
        // Participants: declared actors, then any undeclared id a step uses (lint reports those).
        var names: [String] = flow.actors.map(\.name)
        var ids: [String] = flow.actors.map(\.id)
        var roles: [String] = flow.actors.map(\.role.rawValue)
        for step in flow.steps {
            for id in [step.from, step.to] where !id.isEmpty && !ids.contains(id) {
                ids.append(id)
                names.append(id)
                roles.append("unknown")
            }
        }
        let count = max(ids.count, 1)
        let boxWidths = names.map { min(max(TextMetrics.width($0, size: 14.2) + 28, 96), 240) }
        let shownNames = names.map { TextMetrics.cut($0, toFit: 196, size: 14.2) }
        func index(_ id: String) -> Int? { ids.firstIndex(of: id) }

        // Messages, with returns detected from the open calls.
        var messages: [Message] = []
        var open: [(Int, Int)] = []
        // How many calls of each (from, to) are open: a step that answers none skips the scan,
        // and a scan only walks what it then removes (linear over the flow).
        var openCalls: [Int: Int] = [:]
        func key(_ from: Int, _ to: Int) -> Int { from * 65_536 + to }
        for step in flow.steps {
            guard let from = index(step.from), let to = index(step.to) else { continue }
            var isReturn = flow.kind(of: step) == .response
            if from != to {
                if openCalls[key(to, from), default: 0] > 0, let callIndex = open.lastIndex(where: { $0.0 == to && $0.1 == from }) {
                    isReturn = true
                    for call in open[callIndex...] { openCalls[key(call.0, call.1), default: 0] -= 1 }
                    open.removeSubrange(callIndex...)
                } else if !isReturn {
                    open.append((from, to))
                    openCalls[key(from, to), default: 0] += 1
                }
            }
            let lines = TextMetrics.wrap(PlainText.of(step.title), maxWidth: labelMaxWidth, maxLines: 2)
            let width = lines.map { TextMetrics.width($0) }.max() ?? 0
            messages.append(Message(step: step, from: from, to: to, lines: lines, width: width, isReturn: isReturn))
        }

        // Horizontal layout: gaps between adjacent lifelines grow until every label fits.
        var gaps = [Int](repeating: 0, count: max(count - 1, 0))
        for i in 0..<gaps.count { gaps[i] = (boxWidths[i] + boxWidths[i + 1]) / 2 + 28 }
        var rightExtra = 0
        var constraints: [(lo: Int, hi: Int, need: Int)] = []
        for message in messages {
            if message.isSelf {
                let need = 40 + message.width + 16
                if message.from < count - 1 {
                    constraints.append((message.from, message.from + 1, need))
                } else {
                    rightExtra = max(rightExtra, need - boxWidths[message.from] / 2)
                }
            } else {
                let lo = min(message.from, message.to), hi = max(message.from, message.to)
                constraints.append((lo, hi, message.width + 56))
            }
        }
        constraints.sort { ($0.hi - $0.lo, $0.lo) < ($1.hi - $1.lo, $1.lo) }
        for constraint in constraints {
            let span = gaps[constraint.lo..<constraint.hi].reduce(0, +)
            if span < constraint.need { gaps[constraint.hi - 1] += constraint.need - span }
        }
        let leftPad = max(boxWidths.first ?? 96, 96) / 2 + 48
        var xs: [Int] = [leftPad]
        for gap in gaps { xs.append(xs.last! + gap) }

        // Branch frames need their own width; they may widen the right margin.
        let titles = Dictionary(flow.steps.map { ($0.number, $0.title) }, uniquingKeysWith: { first, _ in first })
        var branchesByStep: [Int: [Branch]] = [:]
        for message in messages where !message.step.alternates.isEmpty {
            branchesByStep[message.step.number] = message.step.alternates.map { alternate in
                let condition = TextMetrics.wrap("[" + PlainText.of(alternate.label) + "]", maxWidth: frameTextMaxWidth, maxLines: 2)
                let targetText: String
                let href: String?
                switch alternate.target {
                case .step(let number):
                    let title = titles[number] ?? ""
                    targetText = TextMetrics.cut("→ \(number). \(PlainText.of(title))", toFit: frameTextMaxWidth)
                    href = "#step-\(number)"
                case .end(let outcome):
                    targetText = "■ " + labels["end"] + ": " + outcome.rawValue
                    href = nil
                }
                let width = ([TextMetrics.width(targetText)] + condition.map { TextMetrics.width($0) }).max() ?? 0
                return Branch(alternate: alternate, conditionLines: condition, targetText: targetText, href: href, width: width)
            }
        }
        for message in messages {
            guard let branches = branchesByStep[message.step.number] else { continue }
            let left = xs[min(message.from, message.to)] - 40
            let need = left + 24 + (branches.map(\.width).max() ?? 0) + 24
            rightExtra = max(rightExtra, need - xs[count - 1] - (boxWidths.last ?? 96) / 2)
        }
        let width = xs[count - 1] + max((boxWidths.last ?? 96) / 2 + 48, (boxWidths.last ?? 96) / 2 + rightExtra + 16)

        // Vertical layout and drawing.
        var body = SVGWriter()
        var y = 8 + boxHeight + 20
        for message in messages {
            let step = message.step
            let x1 = xs[message.from], x2 = xs[message.to]
            let textHeight = message.lines.count * lineHeight
            let arrowY = y + textHeight + 4
            let failing = failingSteps.contains(step.number)
            let kindClass = (message.isReturn ? "msg msg-return" : (message.isSelf ? "msg msg-self" : "msg msg-call")) + (failing ? " msg-fail" : "")
            let tooltip = "\(step.number). \(PlainText.of(step.title)) (\(names[message.from]) → \(names[message.to]))"
                + (failing ? " — " + labels["verdict_fail"] : "")
            body.open("a", ["href": "#\(step.anchor)", "class": kindClass, "data-step": String(step.number)])
            body.element("title", [:], text: tooltip)
            if message.isSelf {
                let loopRight = x1 + 36
                let bottom = arrowY + 22
                body.element("rect", ["class": "msg-hit", "x": String(x1 - 12), "y": String(y - 4), "width": String(48 + message.width + 8), "height": String(bottom - y + 10)])
                body.element("path", [
                    "class": "msg-line", "d": "M\(x1),\(arrowY)H\(loopRight)V\(bottom)H\(x1 + 2)",
                    "marker-end": "url(#seq-arrow)",
                ])
                body.text(message.lines, x: loopRight + 8, y: y + 12, className: "msg-label", anchor: "start")
                badge(&body, x: x1 + 14, y: arrowY, number: step.number)
                y = bottom + 18
            } else {
                let direction = x2 > x1 ? 1 : -1
                let lo = min(x1, x2), hi = max(x1, x2)
                body.element("rect", ["class": "msg-hit", "x": String(lo), "y": String(y - 4), "width": String(hi - lo), "height": String(textHeight + 18)])
                body.element("line", [
                    "class": "msg-line", "x1": String(x1), "y1": String(arrowY), "x2": String(x2 - direction * 2), "y2": String(arrowY),
                    "marker-end": "url(#seq-arrow)",
                ])
                body.text(message.lines, x: (x1 + x2) / 2 + direction * 8, y: y + 12, className: "msg-label")
                badge(&body, x: x1 + direction * 14, y: arrowY, number: step.number)
                y = arrowY + 18
            }
            body.close("a")

            if let branches = branchesByStep[step.number] {
                let left = min(x1, x2) - 40
                let frameWidth = max(max(x1, x2) + 40 - left, 24 + (branches.map(\.width).max() ?? 0) + 24)
                let top = y - 4
                var cursor = top + 22
                var sections = SVGWriter()
                for (position, branch) in branches.enumerated() {
                    if position > 0 {
                        sections.element("line", ["class": "frame-sep", "x1": String(left), "y1": String(cursor - 4), "x2": String(left + frameWidth), "y2": String(cursor - 4)])
                        sections.element("text", ["class": "frame-kw", "x": String(left + 6), "y": String(cursor + 10)], text: "else")
                        cursor += 2
                    }
                    let textX = left + 48
                    let linesHeight = branch.conditionLines.count * lineHeight
                    let tag = branch.href == nil ? "g" : "a"
                    if let href = branch.href {
                        sections.open("a", ["href": href, "class": "alt-branch", "data-step": String(step.number)])
                    } else {
                        sections.open("g", ["class": "alt-branch alt-end", "data-step": String(step.number)])
                    }
                    sections.element("title", [:], text: branch.alternate.label + " → " + branch.alternate.target.description)
                    sections.text(branch.conditionLines, x: textX, y: cursor + 10, className: "alt-cond", anchor: "start")
                    sections.element("text", ["class": "alt-target", "x": String(textX), "y": String(cursor + 10 + linesHeight)], text: branch.targetText)
                    sections.close(tag)
                    cursor += linesHeight + lineHeight + 12
                }
                let bottom = cursor
                body.open("g", ["class": "alt-frame", "data-step": String(step.number)])
                body.element("rect", ["class": "frame", "x": String(left), "y": String(top), "width": String(frameWidth), "height": String(bottom - top), "rx": "3"])
                body.element("path", ["class": "frame-tab", "d": "M\(left),\(top)h34v12l-6,6h-28z"])
                body.element("text", ["class": "frame-kw", "x": String(left + 6), "y": String(top + 13)], text: "alt")
                body.raw(sections.output)
                body.close("g")
                y = bottom + 14
            }
        }
        let bottomBoxY = y + 6
        let height = bottomBoxY + boxHeight + 8

        // Participants and lifelines go first, so messages paint over them.
        var svg = SVGWriter()
        let title = labels["sequence_diagram"] + ": " + PlainText.of(flow.title)
        svg.open("svg", [
            "class": "diagram seq", "viewBox": "0 0 \(width) \(height)", "width": String(width), "height": String(height),
            "aria-labelledby": "seq-title seq-desc", "role": "group",
        ])
        svg.element("title", ["id": "seq-title"], text: title)
        svg.element("desc", ["id": "seq-desc"], text: description(names: names, ids: ids, messages: messages))
        svg.raw("<defs><marker id=\"seq-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path class=\"arrowhead\" d=\"M0,1L10,5L0,9z\"/></marker></defs>")
        for (i, x) in xs.enumerated() where i < ids.count {
            svg.element("line", ["class": "lifeline", "x1": String(x), "y1": String(8 + boxHeight), "x2": String(x), "y2": String(bottomBoxY)])
        }
        for (i, x) in xs.enumerated() where i < ids.count {
            for boxY in [8, bottomBoxY] {
                svg.open("g", ["class": "participant role-\(roles[i])"])
                svg.element("rect", ["x": String(x - boxWidths[i] / 2), "y": String(boxY), "width": String(boxWidths[i]), "height": String(boxHeight), "rx": "6"])
                svg.element("text", ["class": "participant-name", "x": String(x), "y": String(boxY + 23), "text-anchor": "middle"], text: shownNames[i])
                svg.close("g")
            }
        }
        svg.raw(body.output)
        svg.close("svg")
        return svg.output
    }

    private func badge(_ svg: inout SVGWriter, x: Int, y: Int, number: Int) {
        svg.element("circle", ["class": "msg-badge", "cx": String(x), "cy": String(y), "r": number >= 10 ? "10" : "9"])
        svg.element("text", ["class": "msg-num", "x": String(x), "y": String(y + 4), "text-anchor": "middle"], text: String(number))
    }

    private func description(names: [String], ids: [String], messages: [Message]) -> String {
        var parts: [String] = [labels["participants"] + ": " + names.joined(separator: ", ") + "."]
        for message in messages {
            var text = "\(message.step.number). \(names[message.from]) → \(names[message.to]): \(message.step.title)"
            if !message.step.alternates.isEmpty {
                text += " (" + message.step.alternates.map { "\($0.label) → \($0.target)" }.joined(separator: "; ") + ")"
            }
            parts.append(text + ".")
        }
        return parts.joined(separator: " ")
    }
}
