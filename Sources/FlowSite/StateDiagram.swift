import FlowModel

/// Draws a flow's state machine in inline SVG at build time: a start dot, one box per step in
/// layers (longest path over forward transitions, so the main path runs straight down), outcome
/// pills in a column on the right, and transitions as labelled arrows. Transitions between
/// adjacent layers are drawn directly; longer forward jumps and loops run in lanes on the left,
/// edges to outcomes in lanes on the right, so arrows never cut through boxes of the main path.
/// Every state links to its step.
///
/// Labels are wrapped (up to three lines), never cut short, and each gets its own place:
/// - edges leaving a box sideways (self-loops and edges to outcomes on the right, jumps on the
///   left) each get a slot of the box's height, one below the other, and the box grows to fit
///   them, so two edges from one state never share a line or a label position;
/// - an edge to an outcome from a box that has another box to its right drops into a channel
///   under its layer and runs right from there, its label above the channel;
/// - a labelled edge to the next layer has its label under its source, left of the line when it
///   bends left, right of it otherwise, stacked when a state has several.
struct StateDiagram {
    let flow: Flow
    let labels: Labels
    /// The flow's state machine when the caller has made it (a page does); else made here.
    var machine: StateMachine?
    /// The flow's titles as plain text.
    let titles: PlainTitles

    init(flow: Flow, labels: Labels, machine: StateMachine? = nil, titles: PlainTitles? = nil) {
        self.flow = flow
        self.labels = labels
        self.machine = machine
        self.titles = titles ?? PlainTitles(flow)
    }

    let nodeWidth = 230
    let lineHeight = 17
    let layerGap = 40
    let edgeLabelMax = 190
    let laneSpacing = 14

    enum Route { case adjacent, left, selfLoop, outcome, outcomeBelow }

    struct Edge {
        let transition: StateMachine.Transition
        var route: Route
        let lines: [String]
        let width: Int
        /// Where the edge leaves its box (y), and where its label's first baseline is.
        var exitY = 0
        /// A self-loop's end (y).
        var endY = 0
        var labelX = 0
        var labelY = 0
        var anchor: StaticString = "start"
        var hasLabel: Bool { !(lines.count == 1 && lines[0].isEmpty) }
        var labelHeight: Int { hasLabel ? lines.count * 17 : 0 }
    }

    struct Node {
        let number: Int
        let lines: [String]
        var layer = 0
        var x = 0
        var y = 0
        var height = 0
        var centerY: Int { y + height / 2 }
        var bottom: Int { y + height }
    }

    func render() -> String { String(decoding: draw().svg, as: UTF8.self) }

    /// The diagram (UTF-8 markup) and its natural width in px (an empty drawing for a flow
    /// without states).
    func draw() -> (svg: [UInt8], width: Int) {
        guard let plan = self.plan() else { return ([], 0) }
        var svg = SVGWriter()
        draw(plan, into: &svg)
        return (svg.bytes, plan.layout.width)
    }

    /// The laid-out states, before anything is drawn (nil for a flow without states): the
    /// figure around the drawing needs its width first.
    struct Plan {
        let layout: StateLayout
        let machine: StateMachine
        let start: Int
    }

    func plan() -> Plan? {
        let machine = self.machine ?? StateMachine(flow: flow)
        guard let start = machine.start else { return nil }
        var layout = StateLayout(diagram: self, machine: machine, outcomeLabel: { labels["end"] + ": " + $0.rawValue })
        layout.run()
        return Plan(layout: layout, machine: machine, start: start)
    }

    /// Writes the diagram into `svg`.
    func draw(_ plan: Plan, into svg: inout SVGWriter) {
        let (layout, machine, start) = (plan.layout, plan.machine, plan.start)
        let nodes = layout.nodes
        svg.open("svg", [
            "class": "diagram states", "viewBox": "0 0 \(layout.width) \(layout.height)", "width": .number(layout.width), "height": .number(layout.height),
            "aria-labelledby": "st-title st-desc", "role": "group",
        ])
        svg.element("title", ["id": "st-title"], text: labels["state_diagram"] + ": " + titles.flow)
        svg.element("desc", ["id": "st-desc"], text: description(machine.allTransitions))
        svg.raw("<defs><marker id=\"st-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path class=\"arrowhead\" d=\"M0,1L10,5L0,9z\"/></marker></defs>")

        // Start dot.
        let first = nodes[start]!
        let startX = first.x + nodeWidth / 2
        svg.element("circle", ["class": "start", "cx": .number(startX), "cy": .number(layout.startY), "r": "7"])
        svg.element("line", ["class": "edge-line", "x1": .number(startX), "y1": .number(layout.startY + 7), "x2": .number(startX), "y2": .number(first.y - 2), "marker-end": "url(#st-arrow)"])

        // Links and tooltips are written piece by piece, not as interpolated Strings.
        for edge in layout.edges {
            let t = edge.transition
            svg.raw("<g class=\"edge edge-")
            svg.raw(routeName(edge.route))
            svg.raw("\" data-from=\"")
            svg.digits(t.from)
            svg.raw("\" data-to=\"")
            svg.escaped(t.target.description)
            svg.raw("\"><title>")
            svg.digits(t.from)
            svg.raw(" → ")
            svg.escaped(t.target.description)
            if let label = t.label {
                svg.raw(": ")
                svg.escaped(PlainText.of(label))
            }
            svg.raw("</title>")
            let start = svg.count
            svg.raw("<path class=\"edge-line\" d=\"")
            if layout.writePath(of: edge, into: &svg) {
                svg.raw("\" marker-end=\"url(#st-arrow)\"/>")
            } else {
                svg.truncate(to: start)
            }
            if edge.hasLabel {
                svg.text(edge.lines, x: edge.labelX, y: edge.labelY, className: "edge-label", anchor: edge.anchor)
            }
            svg.close("g")
        }

        // Nodes over edges.
        for number in machine.states {
            let node = nodes[number]!
            svg.raw("<a href=\"#step-")
            svg.digits(number)
            svg.raw("\" class=\"state\" data-step=\"")
            svg.digits(number)
            svg.raw("\"><title>")
            svg.digits(number)
            svg.raw(". ")
            svg.escaped(titles.step(number))
            svg.raw("</title>")
            svg.element("rect", ["x": .number(node.x), "y": .number(node.y), "width": .number(nodeWidth), "height": .number(node.height), "rx": "8"])
            svg.text(node.lines, x: node.x + nodeWidth / 2, y: node.y + (node.height - node.lines.count * lineHeight) / 2 + 13, className: "state-label")
            svg.close("a")
        }
        for (index, outcome) in layout.outcomeOrder.enumerated() {
            let oy = layout.outcomeY[outcome]!
            let width = layout.outcomeWidths[index]
            let kind = ["success", "failure", "cancelled"].contains(outcome.rawValue) ? outcome.rawValue : "other"
            svg.open("g", ["class": "outcome outcome-\(kind)"])
            svg.element("rect", ["x": .number(layout.outcomeX), "y": .number(oy), "width": .number(width), "height": "30", "rx": "15"])
            svg.element("rect", ["class": "outcome-inner", "x": .number(layout.outcomeX + 3), "y": .number(oy + 3), "width": .number(width - 6), "height": "24", "rx": "12"])
            svg.element("text", ["class": "outcome-label", "x": .number(layout.outcomeX + width / 2), "y": .number(oy + 20), "text-anchor": "middle"], text: labels["end"] + ": " + outcome.rawValue)
            svg.close("g")
        }
        svg.close("svg")
    }

    private func routeName(_ route: Route) -> StaticString {
        switch route {
        case .adjacent: "adjacent"
        case .left: "left"
        case .selfLoop: "selfloop"
        case .outcome, .outcomeBelow: "outcome"
        }
    }

    private func description(_ transitions: [StateMachine.Transition]) -> String {
        // One buffer (interpolations and a join cost 37 000 instructions a diagram).
        var out: [UInt8] = []
        out.reserveCapacity(24 * transitions.count + 1)
        for (index, transition) in transitions.enumerated() {
            if index > 0 { out.append(contentsOf: "; ".utf8) }
            out.append(contentsOf: String(transition.from).utf8)
            out.append(contentsOf: " → ".utf8)
            out.append(contentsOf: transition.target.description.utf8)
            if let label = transition.label {
                out.append(contentsOf: " (".utf8)
                out.append(contentsOf: label.utf8)
                out.append(UInt8(ascii: ")"))
            }
        }
        out.append(UInt8(ascii: "."))
        return String(decoding: out, as: UTF8.self)
    }
}
