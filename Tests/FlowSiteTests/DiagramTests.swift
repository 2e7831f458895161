import FlowLint
import FlowModel
import Foundation
import Testing
@testable import FlowSite

@Suite("Diagrams")
struct DiagramTests {
    func sampleFlow() throws -> Flow {
        let run = Linter().lint(sources: [(file: "flows/sample.md", text: sampleSpec())])
        #expect(!run.hasErrors, "\(run.diagnostics)")
        return try #require(run.flows.first)
    }

    func labels() throws -> Labels {
        try Theme.load(overrideDirectory: nil).labels(for: "en")
    }

    func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func sequenceDiagramHasOneLinkedMessagePerStep() throws {
        let flow = try sampleFlow()
        let svg = SequenceDiagram(flow: flow, labels: try labels()).render()
        #expect(svg.hasPrefix("<svg"))
        #expect(count("<a href=\"#step-", in: svg) - count("class=\"alt-branch\"", in: svg) == flow.steps.count)
        for step in flow.steps {
            #expect(count("<a href=\"#step-\(step.number)\" class=\"msg ", in: svg) == 1, "message for step \(step.number)")
        }
        // Participants drawn top and bottom, lifeline per actor.
        #expect(count("class=\"participant ", in: svg) == flow.actors.count * 2)
        #expect(count("class=\"lifeline\"", in: svg) == flow.actors.count)
        #expect(svg.contains("<title id=\"seq-title\">"))
        #expect(svg.contains("<desc id=\"seq-desc\">"))
    }

    @Test func sequenceDiagramDrawsSelfMessagesReturnsAndAltFrames() throws {
        let flow = try sampleFlow()
        let svg = SequenceDiagram(flow: flow, labels: try labels()).render()
        // Step 5 is backend → backend; step 6 answers the app's call of step 4.
        #expect(svg.contains("<a href=\"#step-5\" class=\"msg msg-self\""))
        #expect(svg.contains("<a href=\"#step-6\" class=\"msg msg-return\""))
        #expect(svg.contains("<a href=\"#step-4\" class=\"msg msg-call\""))
        // One alt frame per step with alternates, one branch per alternate.
        let branching = flow.steps.filter { !$0.alternates.isEmpty }
        #expect(count("class=\"alt-frame\"", in: svg) == branching.count)
        let alternates = branching.flatMap(\.alternates)
        #expect(count("class=\"alt-branch", in: svg) == alternates.count)
        #expect(count(">else</text>", in: svg) == alternates.count - branching.count)
        #expect(svg.contains("<a href=\"#step-3\" class=\"alt-branch\" data-step=\"2\">"))
        #expect(svg.contains("[Wrong password, try again]"))
        #expect(svg.contains("end: cancelled"))
    }

    @Test func stateDiagramHasEveryStateTransitionAndOutcome() throws {
        let flow = try sampleFlow()
        let svg = StateDiagram(flow: flow, labels: try labels()).render()
        let machine = StateMachine(flow: flow)
        for state in machine.states {
            #expect(svg.contains("<a href=\"#step-\(state)\" class=\"state\""))
        }
        // Counted by hand from sampleSpec(): 1→2, 2→4, 2→3, 3→4, 3→3, 3→cancelled, 4→5, 5→6,
        // 6→success, 6→failure.
        #expect(count("<g class=\"edge ", in: svg) == 10)
        #expect(svg.contains("class=\"edge edge-selfloop\" data-from=\"3\" data-to=\"3\""))
        for outcome in machine.outcomes {
            #expect(svg.contains("end: \(outcome.rawValue)</text>"))
        }
        #expect(svg.contains("class=\"outcome outcome-cancelled\""))
    }

    @Test func diagramsAreDeterministic() throws {
        let flow = try sampleFlow()
        let labels = try labels()
        #expect(SequenceDiagram(flow: flow, labels: labels).render() == SequenceDiagram(flow: flow, labels: labels).render())
        #expect(StateDiagram(flow: flow, labels: labels).render() == StateDiagram(flow: flow, labels: labels).render())
    }

    /// A page's plain titles are `PlainText.of` each title, and a step number given twice names
    /// its first step (as the tables of titles the diagrams and steps each made did).
    @Test func plainTitlesAreEachTitleMadePlain() throws {
        var flow = try sampleFlow()
        flow.title = "Sign in with **Apple** `v2` <beta>"
        flow.steps[0].title = "User taps _Sign in_ & [waits](https://example.com)"
        var twin = flow.steps[1]
        twin.title = "A second step " + String(twin.number) + " with ~~strike~~"
        flow.steps.append(twin)
        flow.sections.append(ProseSection(heading: "Notes on `nonce` *handling*", level: 2, body: Markdown(source: "Text.", location: SourceLocation(file: flow.file, line: 1, column: 1)), placement: .afterSteps))
        let titles = PlainTitles(flow)
        #expect(titles.flow == PlainText.of(flow.title))
        #expect(titles.steps == flow.steps.map { PlainText.of($0.title) })
        #expect(titles.headings == flow.sections.map { PlainText.of($0.heading) })
        for step in flow.steps {
            let first = try #require(flow.steps.first { $0.number == step.number })
            #expect(titles.step(step.number) == PlainText.of(first.title))
            #expect(titles.position(of: step.number).map { flow.steps[$0].title } == first.title)
        }
        #expect(titles.step(9_999) == "" && titles.position(of: 9_999) == nil)
        #expect(titles.steps[0] != flow.steps[0].title, "the markup was not taken out")
    }

    @Test func textWrapRespectsWidthAndLineLimit() {
        let lines = TextMetrics.wrap(String(repeating: "word ", count: 60), maxWidth: 120, maxLines: 2)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { TextMetrics.width($0) <= 120 })
        #expect(lines.last!.hasSuffix("…"))
    }
}
