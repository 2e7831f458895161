import FlowModel

/// Draws a flow as a UML sequence diagram in inline SVG at build time: participants in actor
/// order, one numbered message per step (dashed when it answers an earlier call, a loop when an
/// actor talks to itself), an `alt` frame after every step with alternates, each branch linking
/// to its target step. Every message links to its step (`#step-N`).
///
/// Every label gets a box from `TextMetrics` (conservative widths) and the layout keeps the boxes
/// apart and inside their frame and the view box: a message's label sits between the lifelines
/// it joins (the gap grows to fit it) and above its number badge; a self-message's label sits
/// right of its loop; an `alt` frame is as wide as its widest text plus padding.
///
/// Styling is done by class names only (the page's stylesheet handles light/dark and print), so
/// the markup works under a strict Content-Security-Policy with no inline styles.
struct SequenceDiagram {
    let flow: Flow
    let labels: Labels
    /// Steps whose check verdict is a failure: their arrows are drawn as failing (`msg-fail`,
    /// line and arrowhead in the failure colour), and the tooltip says so; the arrow links to the
    /// step, where the evidence is.
    var failingSteps: Set<Int> = []
    /// The flow's titles as plain text.
    let titles: PlainTitles

    init(flow: Flow, labels: Labels, failingSteps: Set<Int> = [], titles: PlainTitles? = nil) {
        self.flow = flow
        self.labels = labels
        self.failingSteps = failingSteps
        self.titles = titles ?? PlainTitles(flow)
    }

    // Geometry (px).
    private let boxHeight = 36
    private let lineHeight = 17
    private let labelMaxWidth = 180
    private let frameTextMaxWidth = 280
    /// Branch texts start this far right of their frame's left edge, clear of the `else` keyword.
    private let frameTextInset = 48
    private let framePadding = 16
    /// A self-message's label starts this far right of its lifeline (right of the loop).
    private let selfLabelOffset = 44
    private let nameMaxWidth = 216

    fileprivate struct Participants {
        var names: [String] = []
        var ids: [String] = []
        var roles: [String] = []
        var boxWidths: [Int] = []
        var shownNames: [String] = []
        var count: Int { max(ids.count, 1) }
    }

    fileprivate struct Message {
        let step: Step
        /// The step's title, plain.
        let title: String
        let from: Int
        let to: Int
        let lines: [String]
        let width: Int
        let isReturn: Bool
        var isSelf: Bool { from == to }
    }

    fileprivate struct Branch {
        let alternate: Alternate
        let conditionLines: [String]
        let targetLines: [String]
        let href: String?
        let width: Int
    }

    /// The diagram and its natural size in px.
    struct Drawing {
        /// UTF-8 markup.
        let svg: [UInt8]
        let width: Int
        let height: Int
        let participants: Int
    }

    func render() -> String { String(decoding: draw().svg, as: UTF8.self) }

    /// What the drawing is made of, found before anything is drawn: the figure around it needs
    /// the width and the number of participants first.
    struct Plan {
        fileprivate let participants: Participants
        fileprivate let messages: [Message]
        fileprivate let branches: [Int: [Branch]]
        fileprivate let xs: [Int]
        let width: Int
        var participantCount: Int { participants.ids.count }
    }

    func plan() -> Plan {
        let participants = self.participants()
        let messages = self.messages(participants)
        let branches = self.branches(messages)
        let (xs, width) = columns(participants, messages, branches)
        return Plan(participants: participants, messages: messages, branches: branches, xs: xs, width: width)
    }

    func draw() -> Drawing {
        let plan = self.plan()
        var svg = SVGWriter()
        let height = draw(plan, into: &svg)
        return Drawing(svg: svg.bytes, width: plan.width, height: height, participants: plan.participantCount)
    }

    /// Writes the diagram into `svg`; returns its height.
    @discardableResult
    func draw(_ plan: Plan, into svg: inout SVGWriter) -> Int {
        let (participants, messages, branches, xs, width) = (plan.participants, plan.messages, plan.branches, plan.xs, plan.width)
        var body = SVGWriter()
        var y = 8 + boxHeight + 20
        for message in messages {
            y = drawMessage(&body, message, xs: xs, names: participants.names, y: y)
            if let stepBranches = branches[message.step.number] {
                y = drawFrame(&body, stepBranches, step: message.step, left: xs[min(message.from, message.to)] - 40,
                              right: xs[max(message.from, message.to)] + 40, y: y)
            }
        }
        let bottomBoxY = y + 6
        let height = bottomBoxY + boxHeight + 8

        // Participants and lifelines go first, so messages paint over them.
        svg.open("svg", [
            "class": "diagram seq", "viewBox": "0 0 \(width) \(height)", "width": .number(width), "height": .number(height),
            "aria-labelledby": "seq-title seq-desc", "role": "group",
        ])
        svg.element("title", ["id": "seq-title"], text: labels["sequence_diagram"] + ": " + titles.flow)
        svg.element("desc", ["id": "seq-desc"], text: description(names: participants.names, messages: messages))
        svg.raw("<defs>")
        svg.raw(string: marker("seq-arrow", className: "arrowhead"))
        if !failingSteps.isEmpty { svg.raw(string: marker("seq-arrow-fail", className: "arrowhead arrowhead-fail")) }
        svg.raw("</defs>")
        for (i, x) in xs.enumerated() where i < participants.ids.count {
            svg.element("line", ["class": "lifeline", "x1": .number(x), "y1": .number(8 + boxHeight), "x2": .number(x), "y2": .number(bottomBoxY)])
        }
        for (i, x) in xs.enumerated() where i < participants.ids.count {
            for boxY in [8, bottomBoxY] {
                let boxWidth = participants.boxWidths[i]
                svg.open("g", ["class": "participant role-\(participants.roles[i])"])
                svg.element("rect", ["x": .number(x - boxWidth / 2), "y": .number(boxY), "width": .number(boxWidth), "height": .number(boxHeight), "rx": "6"])
                svg.element("text", ["class": "participant-name", "x": .number(x), "y": .number(boxY + 23), "text-anchor": "middle"], text: participants.shownNames[i])
                svg.close("g")
            }
        }
        svg.raw(body)
        svg.close("svg")
        return height
    }

    private func marker(_ id: String, className: String) -> String {
        "<marker id=\"\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path class=\"\(className)\" d=\"M0,1L10,5L0,9z\"/></marker>"
    }

    /// Declared actors, then any undeclared id a step uses (lint reports those).
    private func participants() -> Participants {
        var p = Participants(names: flow.actors.map(\.name), ids: flow.actors.map(\.id), roles: flow.actors.map(\.role.rawValue))
        for step in flow.steps {
            for id in [step.from, step.to] where !id.isEmpty && !p.ids.contains(id) {
                p.ids.append(id)
                p.names.append(id)
                p.roles.append("unknown")
            }
        }
        p.shownNames = p.names.map { TextMetrics.cut($0, toFit: nameMaxWidth) }
        p.boxWidths = p.shownNames.map { max(TextMetrics.width($0) + 24, 96) }
        return p
    }

    /// One message per step whose actors are known, with returns detected from the open calls.
    private func messages(_ participants: Participants) -> [Message] {
        var messages: [Message] = []
        var open: [(Int, Int)] = []
        // How many calls of each (from, to) are open: a step that answers none skips the scan,
        // and a scan only walks what it then removes (linear over the flow).
        var openCalls: [Int: Int] = [:]
        func key(_ from: Int, _ to: Int) -> Int { from * 65_536 + to }
        for (position, step) in flow.steps.enumerated() {
            guard let from = participants.ids.firstIndex(of: step.from), let to = participants.ids.firstIndex(of: step.to) else { continue }
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
            let title = titles.steps[position]
            let lines = TextMetrics.wrap(title, maxWidth: labelMaxWidth, maxLines: 3)
            let width = lines.map { TextMetrics.width($0) }.max() ?? 0
            messages.append(Message(step: step, title: title, from: from, to: to, lines: lines, width: width, isReturn: isReturn))
        }
        return messages
    }

    /// The `alt` branches of every step that has alternates, by step number.
    private func branches(_ messages: [Message]) -> [Int: [Branch]] {
        var branchesByStep: [Int: [Branch]] = [:]
        for message in messages where !message.step.alternates.isEmpty {
            branchesByStep[message.step.number] = message.step.alternates.map { alternate in
                let condition = TextMetrics.wrap("[" + PlainText.of(alternate.label) + "]", maxWidth: frameTextMaxWidth, maxLines: 2)
                let target: [String]
                let href: String?
                switch alternate.target {
                case .step(let number):
                    target = TextMetrics.wrap("→ \(number). \(titles.step(number))", maxWidth: frameTextMaxWidth, maxLines: 2)
                    href = "#step-\(number)"
                case .end(let outcome):
                    target = TextMetrics.wrap("■ " + labels["end"] + ": " + outcome.rawValue, maxWidth: frameTextMaxWidth, maxLines: 2)
                    href = nil
                }
                let width = (condition + target).map { TextMetrics.width($0) }.max() ?? 0
                return Branch(alternate: alternate, conditionLines: condition, targetLines: target, href: href, width: width)
            }
        }
        return branchesByStep
    }

    /// Lifeline positions and the diagram's width: gaps between adjacent lifelines grow until
    /// every label fits between the lifelines it joins; frames and the last participant's
    /// self-messages widen the right margin.
    private func columns(_ participants: Participants, _ messages: [Message], _ branches: [Int: [Branch]]) -> ([Int], Int) {
        let count = participants.count
        let boxWidths = participants.boxWidths.isEmpty ? [96] : participants.boxWidths
        var gaps = [Int](repeating: 0, count: max(count - 1, 0))
        for i in 0..<gaps.count { gaps[i] = (boxWidths[i] + boxWidths[i + 1]) / 2 + 24 }
        var constraints: [(lo: Int, hi: Int, need: Int)] = []
        var rightReach = boxWidths[count - 1] / 2 + 16
        for message in messages {
            if message.isSelf {
                let need = selfLabelOffset + message.width + 16
                if message.from < count - 1 {
                    constraints.append((message.from, message.from + 1, need))
                } else {
                    rightReach = max(rightReach, need)
                }
            } else {
                constraints.append((min(message.from, message.to), max(message.from, message.to), message.width + 56))
            }
        }
        constraints.sort { ($0.hi - $0.lo, $0.lo) < ($1.hi - $1.lo, $1.lo) }
        for constraint in constraints {
            let span = gaps[constraint.lo..<constraint.hi].reduce(0, +)
            if span < constraint.need { gaps[constraint.hi - 1] += constraint.need - span }
        }
        // Frames start 40 px left of their leftmost lifeline.
        var xs: [Int] = [max(boxWidths[0] / 2 + 16, 48)]
        for gap in gaps { xs.append(xs.last! + gap) }
        for message in messages {
            guard let stepBranches = branches[message.step.number] else { continue }
            let left = xs[min(message.from, message.to)] - 40
            let right = max(xs[max(message.from, message.to)] + 40, left + frameTextInset + (stepBranches.map(\.width).max() ?? 0) + framePadding)
            rightReach = max(rightReach, right - xs[count - 1] + 8)
        }
        return (xs, xs[count - 1] + rightReach)
    }

    /// Draws one message from `y` down; returns where the next element starts.
    private func drawMessage(_ body: inout SVGWriter, _ message: Message, xs: [Int], names: [String], y: Int) -> Int {
        let step = message.step
        let x1 = xs[message.from], x2 = xs[message.to]
        let textHeight = message.lines.count * lineHeight
        let failing = failingSteps.contains(step.number)
        let markerURL: SVGValue = failing ? "url(#seq-arrow-fail)" : "url(#seq-arrow)"
        var next: Int
        // The link and its tooltip are written piece by piece: as interpolated Strings they were
        // a third of a message's instructions.
        body.raw("<a href=\"#")
        body.escaped(step.anchor)
        body.raw(message.isReturn ? "\" class=\"msg msg-return" : (message.isSelf ? "\" class=\"msg msg-self" : "\" class=\"msg msg-call"))
        if failing { body.raw(" msg-fail") }
        body.raw("\" data-step=\"")
        body.digits(step.number)
        body.raw("\"><title>")
        body.digits(step.number)
        body.raw(". ")
        body.escaped(message.title)
        body.raw(" (")
        body.escaped(names[message.from])
        body.raw(" → ")
        body.escaped(names[message.to])
        body.raw(")")
        if failing {
            body.raw(" — ")
            body.escaped(labels["verdict_fail"])
        }
        body.raw("</title>")
        if message.isSelf {
            // The loop on the left, the label right of it from the top of the band.
            let arrowY = y + 8
            let loopRight = x1 + 36
            let bottom = arrowY + 22
            next = max(bottom, y + textHeight) + 18
            body.element("rect", ["class": "msg-hit", "x": .number(x1 - 12), "y": .number(y - 4), "width": .number(selfLabelOffset + message.width + 20), "height": .number(next - y - 6)])
            body.element("path", [
                "class": "msg-line", "d": "M\(x1),\(arrowY)H\(loopRight)V\(bottom)H\(x1 + 2)", "marker-end": markerURL,
            ])
            body.text(message.lines, x: x1 + selfLabelOffset, y: y + 12, className: "msg-label", anchor: "start")
            badge(&body, x: x1 + 14, y: arrowY, number: step.number)
        } else {
            // The label above the arrow, clear of the number badge on the arrow.
            let arrowY = y + textHeight + 10
            let direction = x2 > x1 ? 1 : -1
            let lo = min(x1, x2), hi = max(x1, x2)
            next = arrowY + 20
            body.element("rect", ["class": "msg-hit", "x": .number(lo), "y": .number(y - 4), "width": .number(hi - lo), "height": .number(next - y - 2)])
            body.element("line", [
                "class": "msg-line", "x1": .number(x1), "y1": .number(arrowY), "x2": .number(x2 - direction * 2), "y2": .number(arrowY),
                "marker-end": markerURL,
            ])
            body.text(message.lines, x: (x1 + x2) / 2 + direction * 8, y: y + 12, className: "msg-label")
            badge(&body, x: x1 + direction * 14, y: arrowY, number: step.number)
        }
        body.close("a")
        return next
    }

    /// Draws the `alt` frame of a step's branches from `y` down; returns where the next element starts.
    private func drawFrame(_ body: inout SVGWriter, _ branches: [Branch], step: Step, left: Int, right: Int, y: Int) -> Int {
        let frameWidth = max(right - left, frameTextInset + (branches.map(\.width).max() ?? 0) + framePadding)
        let top = y - 4
        var cursor = top + 22
        var sections = SVGWriter()
        for (position, branch) in branches.enumerated() {
            if position > 0 {
                sections.element("line", ["class": "frame-sep", "x1": .number(left), "y1": .number(cursor - 4), "x2": .number(left + frameWidth), "y2": .number(cursor - 4)])
                sections.element("text", ["class": "frame-kw", "x": .number(left + 6), "y": .number(cursor + 10)], text: "else")
                cursor += 2
            }
            let textX = left + frameTextInset
            let conditionHeight = branch.conditionLines.count * lineHeight
            let tag: StaticString = branch.href == nil ? "g" : "a"
            if let href = branch.href {
                sections.open("a", ["href": .text(href), "class": "alt-branch", "data-step": .number(step.number)])
            } else {
                sections.open("g", ["class": "alt-branch alt-end", "data-step": .number(step.number)])
            }
            sections.element("title", [:], text: branch.alternate.label + " → " + branch.alternate.target.description)
            sections.text(branch.conditionLines, x: textX, y: cursor + 10, className: "alt-cond", anchor: "start")
            sections.text(branch.targetLines, x: textX, y: cursor + 10 + conditionHeight, className: "alt-target", anchor: "start")
            sections.close(tag)
            cursor += conditionHeight + branch.targetLines.count * lineHeight + 12
        }
        let bottom = cursor
        body.open("g", ["class": "alt-frame", "data-step": .number(step.number)])
        body.element("rect", ["class": "frame", "x": .number(left), "y": .number(top), "width": .number(frameWidth), "height": .number(bottom - top), "rx": "3"])
        body.element("path", ["class": "frame-tab", "d": "M\(left),\(top)h34v12l-6,6h-28z"])
        body.element("text", ["class": "frame-kw", "x": .number(left + 6), "y": .number(top + 13)], text: "alt")
        body.raw(sections)
        body.close("g")
        return bottom + 14
    }

    private func badge(_ svg: inout SVGWriter, x: Int, y: Int, number: Int) {
        svg.element("circle", ["class": "msg-badge", "cx": .number(x), "cy": .number(y), "r": number >= 10 ? "10" : "9"])
        svg.element("text", ["class": "msg-num", "x": .number(x), "y": .number(y + 4), "text-anchor": "middle"], text: String(number))
    }

    private func description(names: [String], messages: [Message]) -> String {
        // One buffer: string interpolations, joins and `+` cost 87 000 instructions a diagram.
        var out: [UInt8] = []
        out.reserveCapacity(64 * (messages.count + 1))
        func put(_ text: String) { out.append(contentsOf: text.utf8) }
        put(labels["participants"])
        put(": ")
        for (index, name) in names.enumerated() {
            if index > 0 { put(", ") }
            put(name)
        }
        put(".")
        for message in messages {
            put(" ")
            put(String(message.step.number))
            put(". ")
            put(names[message.from])
            put(" → ")
            put(names[message.to])
            put(": ")
            put(message.step.title)
            if !message.step.alternates.isEmpty {
                put(" (")
                for (index, alternate) in message.step.alternates.enumerated() {
                    if index > 0 { put("; ") }
                    put(alternate.label)
                    put(" → ")
                    put(alternate.target.description)
                }
                put(")")
            }
            put(".")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
