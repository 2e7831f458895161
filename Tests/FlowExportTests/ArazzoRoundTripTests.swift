import FlowImport
import FlowModel
import Foundation
import Testing
import TestSupport

/// export → import → export, each step its own `flowspec` process: the second export is the
/// first byte for byte (Arazzo document and OpenAPI description, YAML and JSON), for every flow
/// in flows/; and Arazzo documents written elsewhere import as the specification reads.
@Suite struct ArazzoRoundTripTests {
    static let flowIDs = [
        "apple-refresh-revoke", "apple-server-notifications", "apple-sign-in-native", "apple-sign-in-web",
        "apple-sign-in-web-en", "google-sign-in-web", "microsoft-sign-in-web", "password-login",
    ]

    @Test(arguments: ["arazzo", "arazzo-json"])
    func everyFlowRoundTripsByteForByte(format: String) throws {
        let root = try ArazzoExportTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for id in Self.flowIDs {
            let first = root.appendingPathComponent("\(id)/first"), second = root.appendingPathComponent("\(id)/second")
            let exported = try ArazzoExportTests.flowspec(["export", "flows", "--flow", id, "--format", format, "--out", first.path])
            try #require(exported.status == 0, "\(id): \(exported.output)")
            let ext = format == "arazzo" ? "yaml" : "json"
            let spec = root.appendingPathComponent("\(id)/imported.md")
            let imported = try ArazzoExportTests.flowspec(["import", first.appendingPathComponent("\(id).arazzo.\(ext)").path, "-o", spec.path])
            #expect(imported.status == 0, "\(id): \(imported.output)")
            #expect(imported.output.contains("lint: 0 errors"), "\(id): \(imported.output)")
            let text = try String(contentsOf: spec, encoding: .utf8)
            #expect(text.contains("> Imported from the Arazzo workflow `\(id)`"))
            let again = try ArazzoExportTests.flowspec(["export", spec.path, "--format", format, "--out", second.path])
            try #require(again.status == 0, "\(id): \(again.output)")
            for file in ["\(id).arazzo.\(ext)", "\(id).openapi.\(ext)"] {
                let before = try Data(contentsOf: first.appendingPathComponent(file))
                let after = try Data(contentsOf: second.appendingPathComponent(file))
                #expect(!before.isEmpty)
                #expect(before == after, "\(file) changed in the round trip")
            }
        }
    }

    /// A hand-written Arazzo document in the style of the specification's examples: steps by
    /// operationId (looked up in the OpenAPI file beside it), a runtime-expression body, criteria,
    /// an output used by the next step, and a failure action.
    @Test func aForeignDocumentImportsAsItReads() throws {
        let folder = ArazzoExportTests.fixtures
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent("pets.arazzo.yaml")))
        #expect(ArazzoImporter.recognizes(bytes))
        let result = ArazzoImporter().importDocument(bytes: bytes, file: "pets.arazzo.yaml") { url in
            (try? Data(contentsOf: folder.appendingPathComponent(url))).map(Array.init)
        }
        #expect(result.report.isEmpty, "\(result.report.map(\.message))")
        let flow = try #require(result.flows.first)
        #expect(flow.id == "adopt-a-pet")
        #expect(flow.steps.map(\.number) == [1, 2])
        let login = try #require(flow.steps.first?.exchange)
        #expect(login.request.method == "POST")
        #expect(login.request.target == "/login")
        #expect(login.request.body == #"{"password":"{{password}}","user":"{{user}}"}"#)
        #expect(login.expectation?.status?.codes == [200])
        #expect(login.expectation?.captures.map(\.name) == ["token"])
        #expect(flow.steps[0].alternates.map(\.target) == [.step(2), .end(.failure)])
        #expect(flow.steps[0].alternates.last?.expectation?.status?.codes == [401])
        let adopt = try #require(flow.steps.last?.exchange)
        #expect(adopt.request.method == "PUT")
        #expect(adopt.request.target == "/pets/{{petId}}/adopt?notify=true")
        #expect(adopt.request.header("Authorization") == "Bearer {{token}}")
        #expect(adopt.expectation?.json.map(\.path.description) == ["$.status"])
        #expect(adopt.expectation?.json.first?.matcher == .equals(.string("adopted")))
        #expect(flow.variables.map(\.name) == ["password", "user"])
    }

    @Test func notArazzoIsNotTakenForArazzo() {
        #expect(!ArazzoImporter.recognizes(Array("```yaml\n Tiêu đề: x\n```\n".utf8)))
        #expect(!ArazzoImporter.recognizes(Array("---\nid: x\n---\n".utf8)))
        #expect(ArazzoImporter.recognizes(Array("{\n  \"arazzo\": \"1.0.1\"\n}\n".utf8)))
        let broken = ArazzoImporter().importDocument(bytes: Array("arazzo: 1.0.1\ninfo: [\n".utf8), file: "x.yaml")
        #expect(broken.flows.isEmpty)
        #expect(broken.report.first?.code == "FS702")
        // A "billion laughs" document is refused, not expanded.
        var laughs = "arazzo: 1.0.1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 { laughs += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let refused = ArazzoImporter().importDocument(bytes: Array(laughs.utf8), file: "laughs.yaml")
        #expect(refused.flows.isEmpty)
        #expect(refused.report.first?.message.contains("aliases") == true)
    }
}
