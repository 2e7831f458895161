import FlowModel

/// Where every box, edge and label of a `StateDiagram` goes (the rules are in its comment).
struct StateLayout {
    typealias Node = StateDiagram.Node
    typealias Edge = StateDiagram.Edge

    let diagram: StateDiagram
    let machine: StateMachine
    let outcomeLabel: (Outcome) -> String

    private(set) var nodes: StateTable<Node>
    private(set) var layers: [[Int]] = []
    private(set) var edges: [Edge] = []
    private(set) var outcomeOrder: [Outcome] = []
    private(set) var outcomeWidths: [Int] = []
    private(set) var outcomeY: [Outcome: Int] = [:]
    private(set) var outcomeX = 0
    private(set) var width = 0
    private(set) var height = 0
    let startY = 18
    /// Lane of each target of a jump on the left, in first-use order.
    private var leftLanes: [Target: Int] = [:]
    /// Edge indices by source state, position of each state in its layer, lane of each outcome:
    /// looked up per state and per edge, so the layout stays linear in the flow's size.
    private var edgesFrom: StateTable<[Int]>
    private var positionInLayer: StateTable<Int>
    private var outcomeLane: [Outcome: Int] = [:]
    private var leftMargin = 24
    private var mainWidth = 0
    private var rightLanesX = 0

    private var nodeWidth: Int { diagram.nodeWidth }
    private var lineHeight: Int { diagram.lineHeight }

    init(diagram: StateDiagram, machine: StateMachine, outcomeLabel: @escaping (Outcome) -> String) {
        self.diagram = diagram
        self.machine = machine
        self.outcomeLabel = outcomeLabel
        nodes = StateTable(states: machine.states)
        edgesFrom = StateTable(states: machine.states)
        positionInLayer = StateTable(states: machine.states)
    }

    mutating func run() {
        makeNodes()
        classifyEdges()
        sizeNodes()
        horizontal()
        vertical()
        placeOutcomes()
    }

    /// Boxes and layers: longest path over forward edges, visiting states in number order.
    private mutating func makeNodes() {
        for number in machine.states {
            let title = diagram.titles.step(number)
            nodes[number] = Node(number: number, lines: TextMetrics.wrap("\(number). \(title)", maxWidth: nodeWidth - 24, maxLines: 3))
        }
        for number in machine.states {
            for transition in machine.transitions(from: number) {
                if case .step(let target) = transition.target, target > number, nodes[target] != nil {
                    nodes[target]!.layer = max(nodes[target]!.layer, nodes[number]!.layer + 1)
                }
            }
        }
        layers = [[Int]](repeating: [], count: (nodes.values.map(\.layer).max() ?? 0) + 1)
        for number in machine.states {
            positionInLayer[number] = layers[nodes[number]!.layer].count
            layers[nodes[number]!.layer].append(number)
        }
    }

    private func isRightmost(_ number: Int) -> Bool {
        guard let node = nodes[number] else { return false }
        return layers[node.layer].last == number
    }

    private mutating func classifyEdges() {
        for transition in machine.allTransitions {
            let text = transition.label.map { PlainText.of($0) } ?? ""
            let lines = text.isEmpty ? [""] : TextMetrics.wrap(text, maxWidth: diagram.edgeLabelMax, size: 12, maxLines: 4)
            let width = lines.map { TextMetrics.width($0, size: 12) }.max() ?? 0
            let route: StateDiagram.Route
            switch transition.target {
            case .end(let outcome):
                if outcomeLane[outcome] == nil {
                    outcomeLane[outcome] = outcomeOrder.count
                    outcomeOrder.append(outcome)
                }
                route = isRightmost(transition.from) ? .outcome : .outcomeBelow
            case .step(let target):
                guard let targetNode = nodes[target], let sourceNode = nodes[transition.from] else { continue }
                if target == transition.from {
                    route = .selfLoop
                } else if targetNode.layer == sourceNode.layer + 1 {
                    route = .adjacent
                } else {
                    route = .left
                }
            }
            edgesFrom[transition.from, default: []].append(edges.count)
            edges.append(Edge(transition: transition, route: route, lines: lines, width: width))
        }
    }

    /// Sideways edges get one slot each on their side of the box; the box grows to fit its text
    /// and its slots. Offsets are relative to the box's top until `vertical()` places it.
    private mutating func sizeNodes() {
        for number in machine.states {
            var node = nodes[number]!
            let outgoing = edgesFrom[number] ?? []
            let right = outgoing.filter { edges[$0].route == .outcome || edges[$0].route == .selfLoop }
            let left = outgoing.filter { edges[$0].route == .left }
            let rightTotal = right.map { slotHeight(edges[$0]) }.reduce(0, +)
            let leftTotal = left.map { slotHeight(edges[$0]) }.reduce(0, +)
            node.height = max(node.lines.count * lineHeight + 18, rightTotal + 8, leftTotal + 8)
            for (slots, total) in [(right, rightTotal), (left, leftTotal)] {
                var cursor = (node.height - total) / 2
                for index in slots {
                    let edge = edges[index]
                    let slot = slotHeight(edge)
                    edges[index].labelY = cursor + 12
                    if edge.route == .selfLoop {
                        edges[index].exitY = cursor + 2
                        edges[index].endY = cursor + slot - 2
                    } else {
                        edges[index].exitY = edge.hasLabel ? cursor + edge.labelHeight + 4 : cursor + 6
                    }
                    cursor += slot
                }
            }
            nodes[number] = node
        }
    }

    private func slotHeight(_ edge: Edge) -> Int {
        if edge.route == .selfLoop { return max(edge.labelHeight + 6, 26) }
        return edge.hasLabel ? edge.labelHeight + 8 : 12
    }

    /// Left lanes and their labels, the main column, labels right of the boxes, right lanes, outcomes.
    private mutating func horizontal() {
        let leftEdges = edges.filter { $0.route == .left }
        for edge in leftEdges where leftLanes[edge.transition.target] == nil { leftLanes[edge.transition.target] = leftLanes.count }
        let leftLabelWidth = leftEdges.map(\.width).max() ?? 0
        let leftOverhang = edges.filter { $0.route == .adjacent && bendsLeft($0) }.map { $0.width + 8 - nodeWidth / 2 + 8 }.max() ?? 0
        leftMargin = max(leftLanes.isEmpty ? 24 : 24 + leftLanes.count * diagram.laneSpacing + leftLabelWidth + 16, leftOverhang + 8)
        let widestLayer = layers.map(\.count).max() ?? 1
        mainWidth = widestLayer * nodeWidth + (widestLayer - 1) * 24
        var rightNeed = 24
        for edge in edges {
            switch edge.route {
            case .outcome: rightNeed = max(rightNeed, 8 + edge.width + 16)
            case .selfLoop: rightNeed = max(rightNeed, 34 + edge.width + 16)
            case .adjacent where !bendsLeft(edge) && edge.hasLabel: rightNeed = max(rightNeed, edge.width + 8 - nodeWidth / 2 + 16)
            default: break
            }
        }
        rightLanesX = leftMargin + mainWidth + rightNeed
        outcomeX = rightLanesX + outcomeOrder.count * diagram.laneSpacing + 16
        outcomeWidths = outcomeOrder.map { TextMetrics.width(outcomeLabel($0)) + 32 }
        width = outcomeX + (outcomeWidths.max() ?? 0) + 16
    }

    private func bendsLeft(_ edge: Edge) -> Bool {
        guard case .step(let target) = edge.transition.target, let t = positionInLayer[target], let s = positionInLayer[edge.transition.from] else { return false }
        let sourceLayer = layers[nodes[edge.transition.from]!.layer], targetLayer = layers[nodes[target]!.layer]
        // Centre offsets of the two boxes within their (centred) rows, in box slots.
        return Double(t) - Double(targetLayer.count - 1) / 2 < Double(s) - Double(sourceLayer.count - 1) / 2
    }

    /// Rows from the top; under each row the channels of its edges to outcomes that drop below
    /// it, then the labels of its edges to the next row.
    private mutating func vertical() {
        var y = startY + 30
        var lastExtra = 0
        for layer in layers {
            let rowHeight = layer.map { nodes[$0]!.height }.max() ?? 0
            let rowWidth = layer.count * nodeWidth + (layer.count - 1) * 24
            var x = leftMargin + (mainWidth - rowWidth) / 2
            for number in layer {
                nodes[number]!.x = x
                nodes[number]!.y = y + (rowHeight - nodes[number]!.height) / 2
                x += nodeWidth + 24
                for index in edgesFrom[number] ?? [] { placeSideLabel(index) }
            }
            let rowBottom = y + rowHeight
            var cursor = rowBottom + 6
            for index in layer.flatMap({ edgesFrom[$0] ?? [] }) where edges[index].route == .outcomeBelow {
                let edge = edges[index]
                edges[index].labelX = nodes[edge.transition.from]!.x + nodeWidth - 16
                edges[index].labelY = cursor + 12
                edges[index].exitY = edge.hasLabel ? cursor + edge.labelHeight + 4 : cursor + 4
                cursor = edges[index].exitY + 6
            }
            let zoneTop = cursor + 2
            var zoneBottom = zoneTop
            for number in layer {
                for left in [true, false] {
                    var c = zoneTop
                    for index in edgesFrom[number] ?? [] where edges[index].route == .adjacent
                        && edges[index].hasLabel && bendsLeft(edges[index]) == left {
                        let center = nodes[number]!.x + nodeWidth / 2
                        edges[index].labelX = left ? center - 8 : center + 8
                        edges[index].anchor = left ? "end" : "start"
                        edges[index].labelY = c + 11
                        c += edges[index].labelHeight + 2
                    }
                    zoneBottom = max(zoneBottom, c)
                }
            }
            lastExtra = cursor - rowBottom
            y = rowBottom + max(diagram.layerGap, zoneBottom - rowBottom + 26)
            height = rowBottom + lastExtra + 12
        }
    }

    /// Makes a sideways edge's slot offsets absolute once its box is placed.
    private mutating func placeSideLabel(_ index: Int) {
        let edge = edges[index]
        let node = nodes[edge.transition.from]!
        switch edge.route {
        case .outcome, .selfLoop:
            edges[index].labelX = node.x + nodeWidth + (edge.route == .selfLoop ? 34 : 8)
        case .left:
            edges[index].labelX = node.x - 8
            edges[index].anchor = "end"
        case .adjacent, .outcomeBelow:
            return
        }
        edges[index].exitY += node.y
        edges[index].labelY += node.y
        edges[index].endY += node.y
    }

    /// Outcomes sit on the right, level with the first edge that reaches them, never overlapping.
    private mutating func placeOutcomes() {
        var firstExit: [Outcome: Int] = [:]
        for edge in edges {
            if case .end(let outcome) = edge.transition.target, firstExit[outcome] == nil { firstExit[outcome] = edge.exitY }
        }
        var lastBottom = 0
        for outcome in outcomeOrder {
            let placed = max(firstExit[outcome]! - 15, lastBottom + 12)
            outcomeY[outcome] = placed
            lastBottom = placed + 30
        }
        height = max(height, lastBottom + 16)
    }

    /// The SVG path of an edge.
    /// Writes the edge's route as path data (numbers and commands, nothing to escape): false,
    /// having written nothing, when an end of it is not laid out.
    func writePath(of edge: Edge, into svg: inout SVGWriter) -> Bool {
        let t = edge.transition
        guard let source = nodes[t.from] else { return false }
        switch edge.route {
        case .adjacent:
            guard case .step(let number) = t.target, let target = nodes[number] else { return false }
            let sx = source.x + nodeWidth / 2, sy = source.bottom
            let tx = target.x + nodeWidth / 2, ty = target.y
            let mid = (sy + ty) / 2
            svg.path("M", sx, sy)
            svg.path("C", sx, mid)
            svg.path(" ", tx, mid)
            svg.path(" ", tx, ty - 2)
        case .left:
            guard case .step(let number) = t.target, let target = nodes[number], let lane = leftLanes[t.target] else { return false }
            let laneX = 24 + lane * diagram.laneSpacing
            roundedPath([(source.x, edge.exitY), (laneX, edge.exitY), (laneX, target.centerY - 6), (target.x - 2, target.centerY - 6)], into: &svg)
        case .selfLoop:
            let rx = source.x + nodeWidth
            let top = edge.exitY
            let bottom = edge.endY
            svg.path("M", rx, top)
            svg.path("C", rx + 30, top - 6)
            svg.path(" ", rx + 30, bottom + 6)
            svg.path(" ", rx + 2, bottom)
        case .outcome, .outcomeBelow:
            guard case .end(let outcome) = t.target, let oy = outcomeY[outcome], let lane = outcomeLane[outcome] else { return false }
            let laneX = rightLanesX + lane * diagram.laneSpacing
            let ty = oy + 15
            if edge.route == .outcomeBelow {
                let dropX = source.x + nodeWidth - 24
                roundedPath([(dropX, source.bottom), (dropX, edge.exitY), (laneX, edge.exitY), (laneX, ty), (outcomeX - 2, ty)], into: &svg)
            } else if edge.exitY == ty {
                svg.path("M", source.x + nodeWidth, ty)
                svg.raw("H")
                svg.digits(outcomeX - 2)
            } else {
                roundedPath([(source.x + nodeWidth, edge.exitY), (laneX, edge.exitY), (laneX, ty), (outcomeX - 2, ty)], into: &svg)
            }
        }
        return true
    }

    /// Orthogonal polyline with rounded corners.
    private func roundedPath(_ points: [(Int, Int)], into svg: inout SVGWriter) {
        guard let first = points.first else { return }
        svg.path("M", first.0, first.1)
        for i in 1..<points.count {
            let p = points[i]
            if i == points.count - 1 {
                svg.path("L", p.0, p.1)
                continue
            }
            let prev = points[i - 1], next = points[i + 1]
            let r = min(8, abs(p.0 - prev.0) / 2 + abs(p.1 - prev.1) / 2, abs(next.0 - p.0) / 2 + abs(next.1 - p.1) / 2)
            svg.path("L", p.0 - sign(p.0 - prev.0) * r, p.1 - sign(p.1 - prev.1) * r)
            svg.path("Q", p.0, p.1)
            svg.path(" ", p.0 + sign(next.0 - p.0) * r, p.1 + sign(next.1 - p.1) * r)
        }
    }

    private func sign(_ value: Int) -> Int { value > 0 ? 1 : (value < 0 ? -1 : 0) }
}
