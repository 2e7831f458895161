import FlowModel

/// A flow's titles as plain text (`PlainText.of`), made once for its page and its search
/// entries: the flow's, its steps' (by position and by number) and its prose headings'. The two
/// diagrams, the steps, the contents and the search entries each named the steps by title, and
/// a page made the same title plain up to a dozen times and a table of the titles four times
/// (callgrind, docs/benchmarks.md). A step number given twice names its first step.
struct PlainTitles: Sendable {
    /// The flow's title.
    let flow: String
    /// The steps' titles, in step order.
    let steps: [String]
    /// The prose sections' headings, in section order.
    let headings: [String]
    /// Each step number's first step (its position).
    private let positions: [Int: Int]

    init(_ flow: Flow) {
        self.flow = PlainText.of(flow.title)
        steps = flow.steps.map { PlainText.of($0.title) }
        headings = flow.sections.map { PlainText.of($0.heading) }
        var positions: [Int: Int] = [:]
        positions.reserveCapacity(flow.steps.count)
        for (position, step) in flow.steps.enumerated() where positions[step.number] == nil { positions[step.number] = position }
        self.positions = positions
    }

    /// Step `number`'s title as plain text ("" when no step has the number).
    func step(_ number: Int) -> String { positions[number].map { steps[$0] } ?? "" }

    /// The position of step `number`'s first step (nil when no step has the number).
    func position(of number: Int) -> Int? { positions[number] }
}
