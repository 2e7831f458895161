import FlowModel

/// FS108 a bidirectional control or an invisible format character in text a reader trusts at a
/// glance — the title, summary, tags, actor ids and names, variables, step titles and branch
/// labels. `U+202E evil` displays as "live" (Trojan Source, CVE-2021-42574); a zero-width
/// space makes two ids look the same. The site shows such characters as `⟦U+202E⟧`.
struct InvisibleTextRule: FlowRule {
    static let codes: [DiagnosticCode] = [.invisibleText]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        let flow = context.flow
        // (`what` is written only for a finding: most texts hold nothing to report.)
        func inspect(_ text: String, _ what: @autoclosure () -> String, _ location: SourceLocation?) {
            // Most texts hold none of `isUnsafe`'s scalars: `needsMarks` finds all of them but
            // tab, newline and carriage return in one pass over the bytes.
            guard TerminalText.needsMarks(text) || text.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return }
            let found = text.unicodeScalars.filter { TerminalText.isUnsafe($0) }
            guard let first = found.first else { return }
            let names = Array(Set(found.map(Self.describe))).sorted().joined(separator: ", ")
            diagnostics.append(.warning(
                .invisibleText, location ?? flow.location,
                "\(what()) holds \(names): it reorders or hides what a reader sees",
                hint: first.value >= 0x202A && first.value <= 0x2069
                    ? "remove it; a bidirectional override makes text read differently from what it is (Trojan Source, CVE-2021-42574)"
                    : "remove it; invisible characters make different text look the same"))
        }
        inspect(flow.title, "the title", flow.keyLocations["title"])
        if let summary = flow.summary { inspect(summary, "the summary", flow.keyLocations["summary"]) }
        for tag in flow.tags { inspect(tag, "tag '\(TerminalText.escaped(tag))'", flow.keyLocations["tags"]) }
        inspect(flow.id, "the flow id", flow.keyLocations["id"])
        for actor in flow.actors {
            inspect(actor.id, "actor id '\(TerminalText.escaped(actor.id))'", actor.location)
            inspect(actor.name, "the name of actor '\(TerminalText.escaped(actor.id))'", actor.location)
        }
        for variable in flow.variables {
            inspect(variable.name + variable.value, "variable '\(TerminalText.escaped(variable.name))'", variable.location)
        }
        for step in flow.steps {
            inspect(step.title, "the title of step \(step.number)", step.location)
            for alternate in step.alternates { inspect(alternate.label, "a branch label of step \(step.number)", alternate.location) }
        }
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return scalar.properties.name.map { "\(code) \($0)" } ?? code
    }
}
