/// The markup around a diagram on a flow page, inside the template's `<figure id="NAME-view">`:
///
/// - a toolbar whose two links switch between the fitted view and the actual-size, full-screen
///   view with CSS `:target` on the figure (`#NAME-view` opens it, `#NAME` closes it): no script;
/// - a scroll region labelled by a visible hint (`aria-labelledby`), holding a canvas that is as
///   wide as the region but never narrower than `readableScale` of the diagram (an empty
///   `diagram-floor` SVG of that width sets the canvas's min-content width). The diagram itself is
///   `max-width: 100%` of the canvas with its natural width as its `width` attribute, so it
///   shrinks to fit its container down to that floor, and below it (a phone) the region scrolls
///   sideways and the stylesheet shows the hint.
struct DiagramFigure {
    /// The smallest scale a fitted diagram is drawn at: 13 px text stays at least 9 px.
    static let readableScale = 0.7

    /// `sequence` or `states`: the id of the diagram's section; the figure is `NAME-view`.
    let name: String
    let width: Int
    let hint: String
    let labels: Labels

    /// UTF-8 markup, for the page's context as it is (no String made and validated again). The
    /// diagram is drawn by `drawing` into the figure's own writer, between the frame's start and
    /// end: as a separate Array it was copied twice more (2 % of a page's instructions).
    func render(_ drawing: (inout SVGWriter) -> Void) -> [UInt8] {
        let floor = Int((Double(width) * Self.readableScale).rounded(.up))
        var out = SVGWriter()
        out.open("p", ["class": "diagram-tools"])
        out.element("a", ["class": "diagram-open", "href": "#\(name)-view"], text: labels["diagram_actual_size"])
        out.element("a", ["class": "diagram-close", "href": "#\(name)"], text: labels["diagram_fit"])
        out.close("p")
        out.open("div", ["class": "diagram-scroll", "tabindex": "0", "role": "region", "aria-labelledby": "\(name)-hint"])
        out.element("p", ["class": "diagram-hint", "id": "\(name)-hint"], text: hint)
        out.open("div", ["class": "diagram-canvas"])
        out.raw("<svg class=\"diagram-floor\" width=\"")
        out.digits(floor)
        out.raw("\" height=\"1\" aria-hidden=\"true\" focusable=\"false\"></svg>")
        drawing(&out)
        out.close("div")
        out.close("div")
        return out.bytes
    }
}

extension SequenceDiagram {
    /// The diagram with its toolbar and scroll region (see `DiagramFigure`).
    func figure() -> [UInt8] {
        let plan = self.plan()
        let hint = labels["sequence_diagram"] + ": " + labels["diagram_scroll_participants"].replacingAll("{n}", with: String(plan.participantCount))
        return DiagramFigure(name: "sequence", width: plan.width, hint: hint, labels: labels).render { draw(plan, into: &$0) }
    }
}

extension StateDiagram {
    /// The diagram with its toolbar and scroll region (see `DiagramFigure`).
    func figure() -> [UInt8] {
        guard let plan = self.plan() else { return [] }
        let hint = labels["state_diagram"] + ": " + labels["diagram_scroll"]
        return DiagramFigure(name: "states", width: plan.layout.width, hint: hint, labels: labels).render { draw(plan, into: &$0) }
    }
}
