import FlowLint
import FlowModel
import Foundation
import Testing

/// `check` lints a batch of files at a time and keeps only a small entry per flow for the rules
/// over all of them, reading a translation and its original again to compare them: its
/// findings must be those of linting every flow whole.
@Suite struct BatchLintTests {
    /// A corpus with every corpus finding: translations that differ from their original in
    /// each compared way (actors, alternates, request line, token rules, a missing step), one
    /// of nowhere, a faithful one, and an id used twice; the original sorts after some of its
    /// translations, before others.
    static func corpus() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = validSpec.replacingOccurrences(of: "id: demo-login", with: "id: demo-original")
        func translation(_ id: String, _ changes: [(String, String)]) -> String {
            var text = original.replacingOccurrences(of: "id: demo-original", with: "id: \(id)")
                .replacingOccurrences(of: "lang: en\n", with: "lang: vi\ntranslation-of: demo-original\n")
                .replacingOccurrences(of: "### 1. User taps the button", with: "### 1. Người dùng nhấn nút")
            for (old, new) in changes {
                #expect(text.contains(old), "fixture drifted: \(old)")
                text = text.replacingOccurrences(of: old, with: new)
            }
            return text
        }
        let files: [(String, String)] = [
            ("b-original.md", original),
            ("a-actors.md", translation("t-actors", [("app → apple", "app → backend")])),
            ("c-alternates.md", translation("t-alternates", [("- Approved → 3", "- Đồng ý → 4")])),
            ("d-request.md", translation("t-request", [("GET /api/me", "GET /api/profile")])),
            ("e-rules.md", translation("t-rules", [("| audience | id_token |", "| audience | id_token @ 4 |")])),
            ("f-missing.md", translation("t-missing", [("### 4. App loads the profile\napp → backend\n\n```http\nGET /api/me\nAuthorization: Bearer {{session}}\n```\n\n```expect\nstatus: 200\n```\n", "")])),
            ("g-faithful.md", translation("t-faithful", [("- Approved → 3", "- Đồng ý → 3")])),
            ("h-nowhere.md", translation("t-nowhere", [("translation-of: demo-original", "translation-of: demo-orignal")])),
            ("i-twice.md", original.replacingOccurrences(of: "id: demo-original", with: "id: t-actors")),
        ]
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func batchesFindWhatTheWholeLintFinds() throws {
        let folder = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = Linter().lint(paths: [folder.path])
        let codes = Set(whole.diagnostics.map(\.code))
        #expect(codes.isSuperset(of: ["FS601", "FS602", "FS603"]), "\(codes.sorted())")
        #expect(whole.diagnostics.filter { $0.code == "FS602" }.count >= 5)
        #expect(whole.flows.count == 9)

        // The corpus rules over flows held in memory find the same.
        let corpus = Linter().lint(flows: whole.flows, providers: whole.providers).filter { $0.code.hasPrefix("FS6") }
        #expect(corpus.sortedForOutput() == whole.diagnostics.filter { $0.code.hasPrefix("FS6") })

        for size in [1, 2, 4, 100] {
            var handed: [String] = []
            var batches = 0
            let run = Linter().lint(paths: [folder.path], inBatchesOf: size) { batch in
                handed += batch.flows.map(\.file)
                batches += 1
                #expect(batch.flows.count <= size)
            }
            #expect(run.diagnostics == whole.diagnostics, "batches of \(size)")
            #expect(run.flows.isEmpty)
            #expect(handed == whole.flows.map(\.file))
            #expect(batches == (9 + size - 1) / size)
        }
    }
}
