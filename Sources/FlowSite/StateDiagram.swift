import FlowModel

/// Draws a flow's state machine in inline SVG at build time: a start dot, one box per step in
/// layers (longest path over forward transitions, so the main path runs straight down), outcome
/// pills in a column on the right, and transitions as labelled arrows. Transitions between
/// adjacent layers are drawn directly; longer forward jumps and loops run in lanes on the left,
/// edges to outcomes in lanes on the right, so arrows never cut through boxes of the main path.
/// Every state links to its step.
struct StateDiagram {
    let flow: Flow
    let labels: Labels

    private let nodeWidth = 230
    private let lineHeight = 16
    private let layerGap = 46
    private let edgeLabelMax = 170
    private let laneSpacing = 14

    private struct Node {
        let number: Int
        let lines: [String]
        var layer = 0
        var x = 0
        var y = 0
        var height: Int { lines.count * 16 + 18 }
        var centerY: Int { y + height / 2 }
    }

    func render() -> String {
        let machine = StateMachine(flow: flow)
        let transitions = machine.allTransitions
        guard let start = machine.start else { return "" }

        // Nodes and layers (longest path over forward edges, visiting states in number order).
        var nodes: [Int: Node] = [:]
        let titles = Dictionary(flow.steps.map { ($0.number, $0.title) }, uniquingKeysWith: { first, _ in first })
        for number in machine.states {
            let title = PlainText.of(titles[number] ?? "")
            nodes[number] = Node(number: number, lines: TextMetrics.wrap("\(number). \(title)", maxWidth: nodeWidth - 24, maxLines: 2))
        }
        for number in machine.states {
            for transition in machine.transitions(from: number) {
                if case .step(let target) = transition.target, target > number, nodes[target] != nil {
                    nodes[target]!.layer = max(nodes[target]!.layer, nodes[number]!.layer + 1)
                }
            }
        }
        _ = start
        let layerCount = (nodes.values.map(\.layer).max() ?? 0) + 1
        var layers = [[Int]](repeating: [], count: layerCount)
        for number in machine.states { layers[nodes[number]!.layer].append(number) }

        // Classify edges.
        enum Route { case adjacent, left, selfLoop, outcome }
        struct Edge {
            let transition: StateMachine.Transition
            let route: Route
            let label: String
        }
        var edges: [Edge] = []
        var outcomeOrder: [Outcome] = []
        for transition in transitions {
            let label = transition.label.map { TextMetrics.cut(PlainText.of($0), toFit: edgeLabelMax, size: 12) } ?? ""
            switch transition.target {
            case .end(let outcome):
                if !outcomeOrder.contains(outcome) { outcomeOrder.append(outcome) }
                edges.append(Edge(transition: transition, route: .outcome, label: label))
            case .step(let target):
                guard let targetNode = nodes[target], let sourceNode = nodes[transition.from] else { continue }
                if target == transition.from {
                    edges.append(Edge(transition: transition, route: .selfLoop, label: label))
                } else if targetNode.layer == sourceNode.layer + 1 {
                    edges.append(Edge(transition: transition, route: .adjacent, label: label))
                } else {
                    edges.append(Edge(transition: transition, route: .left, label: label))
                }
            }
        }

        // Horizontal extents: left lanes + their labels, main column, self loops, right lanes, outcomes.
        let leftTargets = uniqueTargets(edges.filter { $0.route == .left }.map(\.transition.target))
        let leftLabelWidth = edges.filter { $0.route == .left }.map { TextMetrics.width($0.label, size: 12) }.max() ?? 0
        let leftMargin = leftTargets.isEmpty ? 24 : 24 + leftTargets.count * laneSpacing + leftLabelWidth + 16
        let widestLayer = layers.map { $0.count }.max() ?? 1
        let mainWidth = widestLayer * nodeWidth + (widestLayer - 1) * 24
        let selfLabelWidth = edges.filter { $0.route == .selfLoop }.map { TextMetrics.width($0.label, size: 12) + 44 }.max() ?? 0
        let outcomeEdges = edges.filter { $0.route == .outcome }
        let outcomeLabelWidth = outcomeEdges.map { TextMetrics.width($0.label, size: 12) }.max() ?? 0
        let mainRight = leftMargin + mainWidth
        let rightLanesX = mainRight + max(selfLabelWidth, outcomeLabelWidth + 24) + 16
        let outcomeX = rightLanesX + outcomeOrder.count * laneSpacing + 16
        let outcomeWidths = outcomeOrder.map { TextMetrics.width(labels["end"] + ": " + $0.rawValue) + 32 }
        let width = outcomeX + (outcomeWidths.max() ?? 0) + 16

        // Layers with labelled edges going down, and states with a self loop (looked up per
        // layer and per edge: sets, so the diagram stays linear in steps).
        let labelledDownLayers = Set(edges.filter { $0.route == .adjacent && !$0.label.isEmpty }.compactMap { nodes[$0.transition.from]?.layer })
        let selfLoopSources = Set(edges.filter { $0.route == .selfLoop }.map(\.transition.from))

        // Vertical positions.
        let startY = 18
        var y = startY + 30
        for (layerIndex, layer) in layers.enumerated() {
            let rowHeight = layer.map { nodes[$0]!.height }.max() ?? 0
            let rowWidth = layer.count * nodeWidth + (layer.count - 1) * 24
            var x = leftMargin + (mainWidth - rowWidth) / 2
            for number in layer {
                nodes[number]!.x = x
                nodes[number]!.y = y + (rowHeight - nodes[number]!.height) / 2
                x += nodeWidth + 24
            }
            // Room for labels of edges leaving this layer downwards.
            let hasLabelledDown = labelledDownLayers.contains(layerIndex)
            y += rowHeight + (hasLabelledDown ? layerGap + 10 : layerGap)
        }
        var height = y - layerGap + 12

        // Outcomes sit on the right, level with the first state that reaches them.
        var outcomeY: [Outcome: Int] = [:]
        var lastBottom = 0
        for outcome in outcomeOrder {
            let firstSource = outcomeEdges.first { $0.transition.target == .end(outcome) }!.transition.from
            let desired = nodes[firstSource]!.centerY - 15
            let placed = max(desired, lastBottom + 12)
            outcomeY[outcome] = placed
            lastBottom = placed + 30
        }
        height = max(height, lastBottom + 16)

        var svg = SVGWriter()
        svg.open("svg", [
            "class": "diagram states", "viewBox": "0 0 \(width) \(height)", "width": String(width), "height": String(height),
            "aria-labelledby": "st-title st-desc", "role": "group",
        ])
        svg.element("title", ["id": "st-title"], text: labels["state_diagram"] + ": " + PlainText.of(flow.title))
        svg.element("desc", ["id": "st-desc"], text: description(transitions))
        svg.raw("<defs><marker id=\"st-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path class=\"arrowhead\" d=\"M0,1L10,5L0,9z\"/></marker></defs>")

        // Start dot.
        let first = nodes[start]!
        let startX = first.x + nodeWidth / 2
        svg.element("circle", ["class": "start", "cx": String(startX), "cy": String(startY), "r": "7"])
        svg.element("line", ["class": "edge-line", "x1": String(startX), "y1": String(startY + 7), "x2": String(startX), "y2": String(first.y - 2), "marker-end": "url(#st-arrow)"])

        // Edges.
        for edge in edges {
            let t = edge.transition
            let source = nodes[t.from]!
            let tooltip = "\(t.from) → \(t.target)" + (t.label.map { ": " + PlainText.of($0) } ?? "")
            svg.open("g", ["class": "edge edge-\(routeName(edge.route))", "data-from": String(t.from), "data-to": t.target.description])
            svg.element("title", [:], text: tooltip)
            switch edge.route {
            case .adjacent:
                guard case .step(let number) = t.target, let target = nodes[number] else { break }
                let sx = source.x + nodeWidth / 2, sy = source.y + source.height
                let tx = target.x + nodeWidth / 2, ty = target.y
                let mid = (sy + ty) / 2
                svg.element("path", ["class": "edge-line", "d": "M\(sx),\(sy)C\(sx),\(mid) \(tx),\(mid) \(tx),\(ty - 2)", "marker-end": "url(#st-arrow)"])
                if !edge.label.isEmpty {
                    label(&svg, edge.label, x: (sx + tx) / 2 + 8, y: mid + 4, anchor: "start")
                }
            case .left:
                guard case .step(let number) = t.target, let target = nodes[number] else { break }
                let lane = leftTargets.firstIndex(of: t.target)!
                let laneX = 24 + lane * laneSpacing
                let sy = source.centerY + 6, ty = target.centerY - 6
                let sx = source.x, tx = target.x
                svg.element("path", ["class": "edge-line", "d": roundedPath([(sx, sy), (laneX, sy), (laneX, ty), (tx - 2, ty)]), "marker-end": "url(#st-arrow)"])
                if !edge.label.isEmpty { label(&svg, edge.label, x: sx - 8, y: sy - 5, anchor: "end") }
            case .selfLoop:
                let rx = source.x + nodeWidth
                let cy = source.centerY
                svg.element("path", ["class": "edge-line", "d": "M\(rx),\(cy - 8)C\(rx + 34),\(cy - 26) \(rx + 34),\(cy + 26) \(rx + 2),\(cy + 8)", "marker-end": "url(#st-arrow)"])
                if !edge.label.isEmpty { label(&svg, edge.label, x: rx + 34, y: cy + 4, anchor: "start") }
            case .outcome:
                guard case .end(let outcome) = t.target, let oy = outcomeY[outcome] else { break }
                let lane = outcomeOrder.firstIndex(of: outcome)!
                let laneX = rightLanesX + lane * laneSpacing
                let sx = source.x + nodeWidth
                let sy = source.centerY + (selfLoopSources.contains(t.from) ? 14 : 0)
                let ty = oy + 15
                let path = sy == ty
                    ? "M\(sx),\(sy)H\(outcomeX - 2)"
                    : roundedPath([(sx, sy), (laneX, sy), (laneX, ty), (outcomeX - 2, ty)])
                svg.element("path", ["class": "edge-line", "d": path, "marker-end": "url(#st-arrow)"])
                if !edge.label.isEmpty { label(&svg, edge.label, x: sx + 8, y: sy - 5, anchor: "start") }
            }
            svg.close("g")
        }

        // Nodes over edges.
        for number in machine.states {
            let node = nodes[number]!
            svg.open("a", ["href": "#step-\(number)", "class": "state", "data-step": String(number)])
            svg.element("title", [:], text: "\(number). " + PlainText.of(titles[number] ?? ""))
            svg.element("rect", ["x": String(node.x), "y": String(node.y), "width": String(nodeWidth), "height": String(node.height), "rx": "8"])
            svg.text(node.lines, x: node.x + nodeWidth / 2, y: node.y + 22, className: "state-label")
            svg.close("a")
        }
        for (index, outcome) in outcomeOrder.enumerated() {
            let oy = outcomeY[outcome]!
            let kind = ["success", "failure", "cancelled"].contains(outcome.rawValue) ? outcome.rawValue : "other"
            svg.open("g", ["class": "outcome outcome-\(kind)"])
            svg.element("rect", ["x": String(outcomeX), "y": String(oy), "width": String(outcomeWidths[index]), "height": "30", "rx": "15"])
            svg.element("rect", ["class": "outcome-inner", "x": String(outcomeX + 3), "y": String(oy + 3), "width": String(outcomeWidths[index] - 6), "height": "24", "rx": "12"])
            svg.element("text", ["class": "outcome-label", "x": String(outcomeX + outcomeWidths[index] / 2), "y": String(oy + 20), "text-anchor": "middle"], text: labels["end"] + ": " + outcome.rawValue)
            svg.close("g")
        }
        svg.close("svg")
        return svg.output
    }

    private func uniqueTargets(_ targets: [Target]) -> [Target] {
        var seen: [Target] = []
        for target in targets where !seen.contains(target) { seen.append(target) }
        return seen
    }

    private func routeName(_ route: Any) -> String {
        String(describing: route).lowercased()
    }

    private func label(_ svg: inout SVGWriter, _ text: String, x: Int, y: Int, anchor: String) {
        svg.element("text", ["class": "edge-label", "x": String(x), "y": String(y), "text-anchor": anchor], text: text)
    }

    /// Orthogonal polyline with rounded corners.
    private func roundedPath(_ points: [(Int, Int)]) -> String {
        guard let first = points.first else { return "" }
        var d = "M\(first.0),\(first.1)"
        for i in 1..<points.count {
            let p = points[i]
            if i == points.count - 1 {
                d += "L\(p.0),\(p.1)"
                continue
            }
            let prev = points[i - 1], next = points[i + 1]
            let r = min(8, abs(p.0 - prev.0) / 2 + abs(p.1 - prev.1) / 2, abs(next.0 - p.0) / 2 + abs(next.1 - p.1) / 2)
            let inX = p.0 - sign(p.0 - prev.0) * r, inY = p.1 - sign(p.1 - prev.1) * r
            let outX = p.0 + sign(next.0 - p.0) * r, outY = p.1 + sign(next.1 - p.1) * r
            d += "L\(inX),\(inY)Q\(p.0),\(p.1) \(outX),\(outY)"
        }
        return d
    }

    private func sign(_ value: Int) -> Int { value > 0 ? 1 : (value < 0 ? -1 : 0) }

    private func description(_ transitions: [StateMachine.Transition]) -> String {
        transitions.map { t in
            "\(t.from) → \(t.target)" + (t.label.map { " (\($0))" } ?? "")
        }.joined(separator: "; ") + "."
    }
}
