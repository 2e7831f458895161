import FlowModel

/// FS601 `translation-of` names a flow that is not among the specs; FS602 a translation whose
/// step structure (numbers, actors, transitions, exchanges) differs from the flow it translates.
struct TranslationRule: CorpusRule {
    static let codes: [DiagnosticCode] = [.unknownOriginal, .translationStructure]

    func check(_ corpus: Corpus, into diagnostics: inout [Diagnostic]) {
        var byID: [String: Int] = [:]
        for (index, flow) in corpus.entries.enumerated() where byID[flow.id] == nil { byID[flow.id] = index }
        for (index, translation) in corpus.entries.enumerated() {
            guard let originalID = translation.translationOf else { continue }
            guard let original = byID[originalID], corpus.entries[original].file != translation.file else {
                diagnostics.append(.error(.unknownOriginal, translation.translationOfLocation, "translation-of '\(originalID)': no such flow among the specs",
                                          hint: suggestion(for: originalID, among: Array(byID.keys)).map { "did you mean '\($0)'?" }
                                              ?? "lint the original together with its translation"))
                continue
            }
            guard let translated = corpus.flow(index), let source = corpus.flow(original) else { continue }
            compare(translated, with: source, into: &diagnostics)
        }
    }

    private func compare(_ translation: Flow, with original: Flow, into diagnostics: inout [Diagnostic]) {
        let originalSteps = Dictionary(original.steps.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let translatedNumbers = Set(translation.steps.map(\.number))
        func differ(_ location: SourceLocation, _ message: String, _ related: SourceLocation) {
            diagnostics.append(.error(.translationStructure, location, message,
                                      hint: "a translation changes words only: step numbers, actors, transitions and requests stay as in \(original.file)",
                                      related: [RelatedLocation(location: related, message: "in the original")]))
        }
        var seen = Set<Int>()
        for step in translation.steps where seen.insert(step.number).inserted {
            guard let source = originalSteps[step.number] else {
                differ(step.numberLocation, "step \(step.number) does not exist in '\(original.id)'", original.location)
                continue
            }
            if step.from != source.from || step.to != source.to {
                differ(step.actorsLocation ?? step.location,
                       "step \(step.number) is \(step.from) → \(step.to) here but \(source.from) → \(source.to) in '\(original.id)'",
                       source.actorsLocation ?? source.location)
            }
            let targets = step.alternates.map(\.target)
            let sourceTargets = source.alternates.map(\.target)
            if targets != sourceTargets {
                differ(step.alternates.first?.location ?? step.location,
                       "step \(step.number) goes to [\(targets.map(\.description).joined(separator: ", "))] here but [\(sourceTargets.map(\.description).joined(separator: ", "))] in '\(original.id)'",
                       source.alternates.first?.location ?? source.location)
            }
            let request = step.exchange.map { "\($0.request.method) \($0.request.target)" }
            let sourceRequest = source.exchange.map { "\($0.request.method) \($0.request.target)" }
            if request != sourceRequest {
                differ(step.exchange?.request.location ?? step.location,
                       "step \(step.number) sends \(request ?? "no request") here but \(sourceRequest ?? "no request") in '\(original.id)'",
                       source.exchange?.request.location ?? source.location)
            }
        }
        for source in original.steps where !translatedNumbers.contains(source.number) {
            differ(translation.steps.last?.location ?? translation.location,
                   "step \(source.number) of '\(original.id)' is missing from the translation", source.numberLocation)
        }
        let ruleIDs = translation.tokenRules.map { "\($0.id)@\($0.step.map(String.init) ?? "?")" }
        let sourceRuleIDs = original.tokenRules.map { "\($0.id)@\($0.step.map(String.init) ?? "?")" }
        if ruleIDs != sourceRuleIDs {
            differ(translation.tokenRulesLocation ?? translation.location,
                   "token rules [\(ruleIDs.joined(separator: ", "))] differ from [\(sourceRuleIDs.joined(separator: ", "))] in '\(original.id)'",
                   original.tokenRulesLocation ?? original.location)
        }
    }
}
