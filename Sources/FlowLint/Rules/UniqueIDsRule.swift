import FlowModel

/// FS603 two specs share an id.
struct UniqueIDsRule: CorpusRule {
    static let codes: [DiagnosticCode] = [.duplicateFlowID]

    func check(_ corpus: Corpus, into diagnostics: inout [Diagnostic]) {
        var first: [String: Corpus.Entry] = [:]
        for flow in corpus.entries where !flow.id.isEmpty {
            if let earlier = first[flow.id] {
                diagnostics.append(.error(.duplicateFlowID, flow.idLocation,
                                          "flow id '\(flow.id)' is already used by \(earlier.file)",
                                          hint: "ids are unique: they name pages and report entries",
                                          related: [RelatedLocation(location: earlier.idLocation, message: "first used here")]))
            } else {
                first[flow.id] = flow
            }
        }
    }
}
