import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FlowLint
import Testing
@testable import FlowSite

/// Checks the geometry of the diagrams of every flow in `flows/` from the generated SVG alone
/// (the site is built into a temporary folder): no two text boxes overlap, every label lies inside
/// its frame (participant box, state box, outcome pill, `alt` frame, number badge) and every text
/// lies inside the view box.
///
/// Text extents are estimated, not measured (the browser test measures them): every character is
/// taken as `emPerCharacter` = 0.62 em wide, combining marks as nothing. That is conservative for
/// the theme's fonts: DejaVu Sans, which `system-ui` resolves to on Linux and one of the widest UI
/// faces, averages 0.53 em per character over the flows' labels as Chromium lays them out, and its
/// bold face (participant names) 0.61 em. A line reaches 0.8 em above its baseline and 0.25 em
/// below it. Font sizes are the stylesheet's (`svg.diagram text` 13 px, smaller for some classes).
@Suite("Diagram layout")
struct DiagramLayoutTests {
    static let emPerCharacter = 0.62
    static let ascent = 0.8
    static let descent = 0.25
    /// From flowspec.css; every other text is 13 px.
    static let fontSizes: [String: Double] = ["edge-label": 12, "outcome-label": 12, "frame-kw": 11, "msg-num": 11]

    final class Element {
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""
        weak var parent: Element?

        init(name: String, attributes: [String: String], parent: Element?) {
            self.name = name
            self.attributes = attributes
            self.parent = parent
        }

        var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
        func number(_ key: String) -> Double { Double(attributes[key] ?? "") ?? 0 }
        func descendants() -> [Element] { children.flatMap { [$0] + $0.descendants() } }
    }

    final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var current: Element?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            let element = Element(name: name, attributes: attributes, parent: current)
            current?.children.append(element)
            if root == nil { root = element }
            current = element
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            current = current?.parent
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { current?.text += string }
    }

    struct Box: CustomStringConvertible {
        var x0, y0, x1, y1: Double
        func inside(_ other: Box) -> Bool { x0 >= other.x0 && y0 >= other.y0 && x1 <= other.x1 && y1 <= other.y1 }
        func overlaps(_ other: Box) -> Bool { x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1 }
        var description: String { "[\(Int(x0.rounded())),\(Int(y0.rounded()))–\(Int(x1.rounded())),\(Int(y1.rounded()))]" }
    }

    struct Line {
        let text: String
        let className: String
        let box: Box
        /// The shape the text belongs in, if any.
        let frame: (name: String, box: Box)?
    }

    static func parse(_ svg: String) throws -> Element {
        let parser = XMLParser(data: Data(svg.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "SVG does not parse: \(String(describing: parser.parserError))"])
        }
        return root
    }

    static func rect(_ element: Element) -> Box {
        let x = element.number("x"), y = element.number("y")
        return Box(x0: x, y0: y, x1: x + element.number("width"), y1: y + element.number("height"))
    }

    /// The frame a text must stay in: its `alt` frame, or the shape of its participant, state,
    /// outcome or badge.
    static func frame(of text: Element) -> (name: String, box: Box)? {
        var ancestor = text.parent
        while let element = ancestor {
            if element.classes.contains("alt-frame"), let frame = element.children.first(where: { $0.classes.contains("frame") }) {
                return ("alt frame", rect(frame))
            }
            ancestor = element.parent
        }
        guard let parent = text.parent else { return nil }
        if text.classes.contains("msg-num"), let index = parent.children.firstIndex(where: { $0 === text }), index > 0, parent.children[index - 1].name == "circle" {
            let circle = parent.children[index - 1]
            let r = circle.number("r")
            return ("badge", Box(x0: circle.number("cx") - r, y0: circle.number("cy") - r, x1: circle.number("cx") + r, y1: circle.number("cy") + r))
        }
        if ["participant-name", "state-label", "outcome-label"].contains(where: text.classes.contains), let shape = parent.children.first(where: { $0.name == "rect" }) {
            return (text.classes.first ?? "", rect(shape))
        }
        return nil
    }

    /// Every line of text in the SVG with its estimated box.
    static func lines(_ root: Element) -> [Line] {
        root.descendants().filter { $0.name == "text" }.flatMap { text -> [Line] in
            let className = text.attributes["class"] ?? ""
            let size = fontSizes[className] ?? 13
            let anchor = text.attributes["text-anchor"] ?? "start"
            let frame = frame(of: text)
            var baseline = text.number("y")
            let spans = text.children.filter { $0.name == "tspan" }
            let parts: [(x: Double, dy: Double, text: String)] = spans.isEmpty
                ? [(text.number("x"), 0, text.text)]
                : spans.map { (($0.attributes["x"].flatMap(Double.init)) ?? text.number("x"), $0.number("dy"), $0.text) }
            return parts.compactMap { part in
                baseline += part.dy
                let characters = part.text.unicodeScalars.filter { !(0x300...0x36F).contains($0.value) }.count
                guard characters > 0, !part.text.allSatisfy(\.isWhitespace) else { return nil }
                let width = Double(characters) * emPerCharacter * size
                let x0 = anchor == "middle" ? part.x - width / 2 : (anchor == "end" ? part.x - width : part.x)
                let box = Box(x0: x0, y0: baseline - ascent * size, x1: x0 + width, y1: baseline + descent * size)
                return Line(text: part.text, className: className, box: box, frame: frame)
            }
        }
    }

    /// What is wrong with a diagram's text layout, one sentence per problem.
    static func problems(_ svg: String) throws -> [String] {
        let root = try parse(svg)
        let viewBox = (root.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        guard viewBox.count == 4 else { return ["no viewBox"] }
        let bounds = Box(x0: viewBox[0], y0: viewBox[1], x1: viewBox[0] + viewBox[2], y1: viewBox[1] + viewBox[3])
        let all = lines(root)
        var problems: [String] = []
        for (index, line) in all.enumerated() {
            if !line.box.inside(bounds) {
                problems.append("\"\(line.text)\" \(line.box) leaves the view box \(bounds)")
            }
            if let frame = line.frame, !line.box.inside(frame.box) {
                problems.append("\"\(line.text)\" \(line.box) leaves its \(frame.name) \(frame.box)")
            }
            for other in all[(index + 1)...] where line.box.overlaps(other.box) {
                problems.append("\"\(line.text)\" \(line.box) overlaps \"\(other.text)\" \(other.box)")
            }
        }
        return problems
    }

    static func diagrams(inPage page: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "<svg class=\"diagram (seq|states)\"[\\s\\S]*?</svg>")
        return pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)).map { String(page[Range($0.range, in: page)!]) }
    }

    @Test func everyFlowsDiagramsKeepTheirLabelsApartAndInsideTheirFrames() throws {
        let scratch = try Scratch()
        let flows = try BrowserTests.buildRepositorySite(into: scratch.out)
        #expect(flows.count >= 8)
        #expect(flows.contains { $0.lang == "tr" }, "flows/ has a Turkish flow")
        for flow in flows {
            let page = try String(contentsOfFile: scratch.out + "/flows/\(flow.id).html", encoding: .utf8)
            let svgs = Self.diagrams(inPage: page)
            #expect(svgs.count == 2, "\(flow.id): sequence and state diagram")
            for svg in svgs {
                let kind = svg.hasPrefix("<svg class=\"diagram seq\"") ? "sequence" : "state"
                let root = try Self.parse(svg)
                #expect(Self.lines(root).count >= flow.steps.count, "\(flow.id) \(kind) diagram: its texts were found")
                let problems = try Self.problems(svg)
                #expect(problems.isEmpty, "\(flow.id) \(kind) diagram:\n\(problems.joined(separator: "\n"))")
            }
        }
    }

    /// The test suite's sample flow (a self-loop, a loop back, branches to outcomes, a response)
    /// passes the same checks.
    @Test func sampleFlowsDiagramsKeepTheirLabelsApartAndInsideTheirFrames() throws {
        let run = Linter().lint(sources: [(file: "flows/sample.md", text: sampleSpec())])
        let flow = try #require(run.flows.first)
        let labels = try Theme.load(overrideDirectory: nil).labels(for: "en")
        for svg in [SequenceDiagram(flow: flow, labels: labels, failingSteps: [4]).render(), StateDiagram(flow: flow, labels: labels).render()] {
            let problems = try Self.problems(svg)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The checker itself finds what it is meant to find (two labels drawn at one spot, a label
    /// wider than its frame, text past the view box), and passes a clean drawing.
    @Test func checkerFindsOverlapsAndLabelsOutsideTheirFrame() throws {
        let overlapping = "<svg class=\"diagram states\" viewBox=\"0 0 400 100\"><text class=\"edge-label\" x=\"10\" y=\"50\">Kullanıcı vazgeçer</text><text class=\"edge-label\" x=\"10\" y=\"50\">Yetkilendirme hata verir</text></svg>"
        #expect(try Self.problems(overlapping).count == 1)
        let spilling = "<svg viewBox=\"0 0 400 100\"><g class=\"alt-frame\"><rect class=\"frame\" x=\"0\" y=\"0\" width=\"100\" height=\"60\"/><text class=\"alt-cond\" x=\"48\" y=\"30\"><tspan x=\"48\">[a long condition]</tspan></text></g></svg>"
        #expect(try Self.problems(spilling).count == 1)
        let outside = "<svg viewBox=\"0 0 100 100\"><text class=\"msg-label\" x=\"90\" y=\"50\" text-anchor=\"start\">clipped</text></svg>"
        #expect(try Self.problems(outside).count == 1)
        let clean = "<svg viewBox=\"0 0 400 100\"><g class=\"participant\"><rect x=\"10\" y=\"8\" width=\"120\" height=\"36\"/><text class=\"participant-name\" x=\"70\" y=\"31\" text-anchor=\"middle\">Backend</text></g><text class=\"msg-label\" x=\"200\" y=\"80\"><tspan x=\"200\">one</tspan><tspan x=\"200\" dy=\"16\">two</tspan></text></svg>"
        #expect(try Self.problems(clean).isEmpty)
    }
}
