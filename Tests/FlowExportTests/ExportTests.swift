import FlowExport
import FlowLint
import FlowModel
import FlowParser
import Foundation
import Testing

@Suite struct ExportTests {
    static let spec = """
    ---
    id: demo
    title: "Demo; #1"
    actors:
      user: { name: User, role: person }
      app: { name: The App, role: client }
      apple-web: { name: Apple, role: provider }
      backend: { name: Backend, role: backend }
    ---

    ## Steps

    ### 1. Tap
    user → app

    ### 2. Authorize
    app → apple-web

    - Accepts → 3
    - Denies → end: cancelled

    ### 3. Code back
    apple-web → app

    ### 4. Validate "it"
    backend → backend
    """

    var flow: Flow { SpecParser().parse(bytes: Array(Self.spec.utf8), file: "demo.md").flow! }

    @Test func mermaidHasParticipantsMessagesAndAltFrames() {
        let mermaid = MermaidExporter.export(flow)
        let lines = mermaid.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequenceDiagram")
        #expect(lines.contains("    title Demo#59; #35;1"))
        #expect(lines.contains("    participant apple_web as Apple"))
        #expect(lines.contains("    user->>app: 1. Tap"))
        #expect(lines.contains("    app->>apple_web: 2. Authorize"))
        #expect(lines.contains("    alt Accepts"))
        #expect(lines.contains("    else Denies"))
        #expect(lines.contains("        Note over app,apple_web: → end: cancelled"))
        // Apple answering the app is a return: dashed.
        #expect(lines.contains("    apple_web-->>app: 3. Code back"))
        #expect(lines.contains("    backend->>backend: 4. Validate \"it\""))
        #expect(lines.filter { $0.hasPrefix("    alt") }.count == lines.filter { $0 == "    end" }.count)
    }

    @Test func dotIsAStateDiagram() {
        let dot = DotExporter.export(flow)
        #expect(dot.hasPrefix("digraph \"demo\" {"))
        #expect(dot.contains("s2 -> s3 [label=\"Accepts\"];"))
        #expect(dot.contains("s2 -> end_cancelled [label=\"Denies\"];"))
        #expect(dot.contains("s4 -> end_success;"))
        #expect(dot.contains("s4 [label=\"4. Validate \\\"it\\\"\", URL=\"#step-4\"];"))
        #expect(dot.contains("start -> s1;"))
    }

    @Test func dotIsAcceptedByGraphvizWhenInstalled() throws {
        // Graphviz is optional; the structural assertions above always run.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(DotExporter.export(flow).utf8))
        try input.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func jsonRoundTripsTheModel() throws {
        let json = try JSONExporter.export([flow], generator: "test")
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["schemaVersion"] as? Int == 1)
        let flows = object?["flows"] as? [[String: Any]]
        let entry = try #require(flows?.first)
        let model = entry["flow"] as? [String: Any]
        #expect(model?["id"] as? String == "demo")
        let steps = model?["steps"] as? [[String: Any]]
        let alternates = steps?[1]["alternates"] as? [[String: Any]]
        #expect(alternates?.first?["target"] as? [String: Int] == ["step": 3])
        #expect(alternates?.last?["target"] as? [String: String] == ["end": "cancelled"])
        #expect((entry["scenarios"] as? [Any])?.count == 2)
        // Decodes back into the same model.
        struct Document: Decodable { var flows: [Entry] }
        struct Entry: Decodable { var flow: Flow }
        let decoded = try JSONDecoder().decode(Document.self, from: Data(json.utf8))
        #expect(decoded.flows.first?.flow == flow)
        // Deterministic bytes.
        #expect(try JSONExporter.export([flow], generator: "test") == json)
    }
}

@Suite struct ExportSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The JSON export of the real flows validates against docs/schemas/flow-model.schema.json
    /// (Python's jsonschema, installed by scripts/setup.sh --test).
    @Test func exportOfRealFlowsMatchesTheDocumentedSchema() throws {
        let run = Linter().lint(paths: [Self.root.appendingPathComponent("flows").path])
        #expect(!run.flows.isEmpty)
        let json = try JSONExporter.export(run.flows, generator: "test")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flow-model-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        for e in errors[:10]: print(list(e.path), e.message)
        sys.exit(1 if errors else 0)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, Self.root.appendingPathComponent("docs/schemas/flow-model.schema.json").path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "schema validation failed: \(text)")
    }
}
