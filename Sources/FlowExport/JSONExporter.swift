import FlowModel
import Foundation

/// The model as JSON (docs/schemas/flow-model.schema.json): the flows as parsed, plus each
/// flow's scenarios and token cases, so tools need not re-derive them.
public enum JSONExporter {
    public static let schemaVersion = 1

    struct Document: Encodable {
        var schemaVersion: Int
        var generator: String
        var flows: [FlowEntry]
    }

    struct FlowEntry: Encodable {
        var flow: Flow
        var scenarios: [Scenario]
        var tokenCases: [String: [String]]
    }

    public static func export(_ flows: [Flow], generator: String) throws -> String {
        let document = Document(
            schemaVersion: schemaVersion,
            generator: generator,
            flows: flows.map { flow in
                FlowEntry(
                    flow: flow,
                    scenarios: StateMachine(flow: flow).scenarios(flowID: flow.id),
                    tokenCases: Dictionary(flow.tokenRules.map { ($0.id, $0.cases.map(\.id)) }, uniquingKeysWith: { first, _ in first })
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}
