import FlowLint
import FlowModel
import Testing

/// Test sources mark expected positions with 1️⃣ 2️⃣ …: the marker is removed and its line and
/// code-point column recorded, so a test says *where* a diagnostic must be, not just that it exists.
struct MarkedSource {
    let text: String
    /// The source as given, markers included.
    let raw: String
    let markers: [String: (line: Int, column: Int)]

    static let symbols = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]

    init(_ marked: String) {
        raw = marked
        var markers: [String: (Int, Int)] = [:]
        var lines: [String] = []
        for (index, rawLine) in marked.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(rawLine)
            while let symbol = Self.symbols.first(where: { line.contains($0) }) {
                let range = line.range(of: symbol)!
                let column = line[..<range.lowerBound].unicodeScalars.count + 1
                markers[symbol] = (index + 1, column)
                line.removeSubrange(range)
            }
            lines.append(line)
        }
        self.text = lines.joined(separator: "\n")
        self.markers = markers
    }
}

/// Lints one marked source (plus optional unmarked companions) as file `flow.md`.
func lint(_ marked: MarkedSource, others: [(file: String, text: String)] = []) -> LintRun {
    Linter().lint(sources: [(file: "flow.md", text: marked.text)] + others)
}

/// Expects exactly one diagnostic with `code`, at `marker`, in `flow.md`.
func expectDiagnostic(
    _ code: String, at marker: String, in marked: MarkedSource, others: [(file: String, text: String)] = [],
    severity: Severity? = nil, messageContains: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let run = lint(marked, others: others)
    let matching = run.diagnostics.filter { $0.code == code && $0.location.file == "flow.md" }
    #expect(matching.count == 1, "expected one \(code), got: \(run.diagnostics.map { "\($0.location) \($0.code) \($0.message)" })", sourceLocation: sourceLocation)
    guard let diagnostic = matching.first, let position = marked.markers[marker] else {
        Issue.record("marker \(marker) missing or no diagnostic", sourceLocation: sourceLocation)
        return
    }
    #expect(diagnostic.location.line == position.line && diagnostic.location.column == position.column,
            "\(code) at \(diagnostic.location.line):\(diagnostic.location.column), expected \(position.line):\(position.column): \(diagnostic.message)",
            sourceLocation: sourceLocation)
    if let severity { #expect(diagnostic.severity == severity, sourceLocation: sourceLocation) }
    if let messageContains { #expect(diagnostic.message.contains(messageContains), "\(diagnostic.message)", sourceLocation: sourceLocation) }
}

/// A correct spec exercising every construct; tests derive faulty variants from it.
let validSpec = """
---
id: demo-login
title: Demo sign-in
summary: A flow used by the linter tests.
lang: en
tags: [auth]
provider: apple
actors:
  user: { name: User, role: person }
  app: { name: App, role: client }
  apple: { name: Apple, role: provider }
  backend: { name: Backend, role: backend }
variables:
  client_id: com.example.app
---

# Demo sign-in

Some prose.

## Steps

### 1. User taps the button
user → app

### 2. App asks Apple
app → apple

- Approved → 3
- Denied → end: cancelled

### 3. App sends the code to the backend
app → backend

```http
POST /api/login
Content-Type: application/json

{"code": "{{provider.code}}", "id_token": "{{provider.id_token}}", "client": "{{client_id}}"}
```

```expect
status: 200
json:
  $.session: { type: string }
capture:
  session: $.session
```

### 4. App loads the profile
app → backend

```http
GET /api/me
Authorization: Bearer {{session}}
```

```expect
status: 200
```

## Token rules

| Rule | Token | Requirement |
|------|-------|-------------|
| signature | id_token @ 3 | RS256 by kid |
| audience | id_token | aud is {{client_id}} |
"""
