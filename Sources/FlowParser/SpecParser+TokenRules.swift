import FlowModel

/// The token-rules table.
extension FlowBuilder {
    // MARK: Token rules

    /// A GFM table whose header starts with `Rule`; nil for other tables (kept as prose).
    mutating func parseTokenTable(_ table: CmarkNode, offset: Int) -> [TokenRule]? {
        let rows = table.children
        guard let header = rows.first, header.type == "table_header" || header.type == "table_row" else { return nil }
        let headerCells = header.children.map { $0.plainText.trimmingCharacters().lowercasedOnBytes() }
        guard headerCells.first == "rule" else { return nil }
        let tableLocation = source.location(line: lines(of: table).first + offset, byteColumn: table.startColumn)
        guard let tokenColumn = headerCells.firstIndex(of: "token") else {
            report(.malformedTokenRules, at: tableLocation, "the token-rules table has no 'Token' column",
                   hint: "columns are `Rule | Token | Requirement`")
            return []
        }
        let requirementColumn = headerCells.firstIndex(of: "requirement")
        var rules: [TokenRule] = []
        var inheritedStep: Int?
        var inheritedToken = ""
        for row in rows.dropFirst() {
            let line = row.startLine + offset
            let cells = row.children.map { $0.plainText.trimmingCharacters() }
            let rowLocation = source.location(line: line, column: max(1, (source.column(of: "|", onLine: line) ?? 0) + 2))
            let id = cells.first ?? ""
            if id.isEmpty {
                report(.malformedTokenRules, at: rowLocation, "token rule without a rule id", hint: "the first column names the rule (`signature`, `audience`…)")
                continue
            }
            let idLocation = source.location(line: line, column: source.column(of: id, onLine: line) ?? rowLocation.column)
            var token = tokenColumn < cells.count ? cells[tokenColumn] : ""
            var step = inheritedStep
            var stepLocation: SourceLocation?
            if let at = token.lastIndex(of: "@") {
                let number = String(token[token.index(after: at)...]).trimmingCharacters()
                let column = source.column(of: "@", onLine: line) ?? 1
                stepLocation = source.location(line: line, column: column)
                if let value = Int(number), value > 0, number.count <= 6 {
                    step = value
                } else {
                    report(.tokenRuleStep, at: stepLocation!, "'@ \(number)' does not name a step",
                           hint: "write the step that submits the token: `id_token @ 6`")
                }
                token = String(token[..<at]).trimmingCharacters()
            }
            if token.isEmpty { token = inheritedToken }
            if token.isEmpty {
                report(.malformedTokenRules, at: idLocation, "token rule '\(id)' does not name a token", hint: "write `id_token @ 6` in the Token column")
            }
            inheritedStep = step
            inheritedToken = token
            let requirement = requirementColumn.flatMap { $0 < cells.count ? cells[$0] : nil } ?? ""
            rules.append(TokenRule(id: id, kind: TokenRuleKind(rawValue: id.lowercased()), token: token, step: step,
                                   requirement: requirement, location: idLocation, stepLocation: stepLocation))
        }
        return rules
    }
}
