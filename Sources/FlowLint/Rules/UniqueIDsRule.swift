import FlowModel

/// FS603 two specs share an id.
struct UniqueIDsRule: CorpusRule {
    static let codes: [DiagnosticCode] = [.duplicateFlowID]

    func check(_ flows: [Flow], into diagnostics: inout [Diagnostic]) {
        var first: [String: Flow] = [:]
        for flow in flows where !flow.id.isEmpty {
            if let earlier = first[flow.id] {
                diagnostics.append(.error(.duplicateFlowID, flow.keyLocations["id"] ?? flow.location,
                                          "flow id '\(flow.id)' is already used by \(earlier.file)",
                                          hint: "ids are unique: they name pages and report entries",
                                          related: [RelatedLocation(location: earlier.keyLocations["id"] ?? earlier.location, message: "first used here")]))
            } else {
                first[flow.id] = flow
            }
        }
    }
}
