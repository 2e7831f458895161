import Foundation
import Testing
import Yams
@testable import FlowOpenAPI
@testable import FlowSite

/// A step whose request matches an operation of the flow's `openapi:` description names the
/// operation (method, path, operationId, summary) beside the example and holds its schemas in a
/// closed <details>; everything from the description is escaped.
@Suite struct OperationLinkTests {
    /// The `<section>` of one step on a page.
    static func stepSection(_ page: String, anchor: String) throws -> String {
        let start = try #require(page.range(of: "id=\"\(anchor)\""), "no \(anchor) on the page")
        let end = try #require(page.range(of: "</section>", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.lowerBound])
    }

    @Test func appleWebLoginStepNamesItsOperationAsTheDescriptionWritesIt() throws {
        // The expected operation comes from the YAML file itself (Yams), not from flowspec.
        let yaml = try String(contentsOfFile: packageRoot + "/openapi/tvl-backend.yaml", encoding: .utf8)
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let login = try #require(paths["/api/v1/auth/apple/login"] as? [String: Any])
        let post = try #require(login["post"] as? [String: Any])
        let operationId = try #require(post["operationId"] as? String)

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-oplinks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let options = SiteBuildOptions(inputs: [packageRoot + "/flows"], outputDirectory: out, configPath: packageRoot + "/site/site.yml", incremental: false)
        let report = try SiteBuilder(options: options).build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let page = try String(contentsOfFile: out + "/flows/apple-sign-in-web.html", encoding: .utf8)
        let section = try Self.stepSection(page, anchor: "step-6")
        #expect(section.contains("<span class=\"http-method\">POST</span> /api/v1/auth/apple/login</code>"))
        #expect(section.contains("<code class=\"api-operation-id\">\(operationId)</code>"))
        #expect(section.contains("<details class=\"api-schemas\">"))
        #expect(!section.contains("<details class=\"api-schemas\" open"))
        // A step without a request names no operation.
        #expect(!(try Self.stepSection(page, anchor: "step-1")).contains("api-operation"))
    }

    static let spec = """
    ---
    id: described
    title: Described login
    lang: en
    openapi: ../openapi/api.yaml
    actors:
      app: { name: App, role: client }
      backend: { name: Backend, role: backend }
    ---

    # Described login

    ## Steps

    ### 1. App signs in
    app → backend

    ```http
    POST /login
    Content-Type: application/json

    {"code": "c"}
    ```

    ```expect
    status: 200
    ```

    - Signed in → end: success
    """

    static let description = """
    openapi: 3.1.0
    info: { title: "T <script>alert(1)</script>", version: "1" }
    paths:
      /login:
        post:
          operationId: "login<script>alert(2)</script>"
          summary: "Sign in <img src=x onerror=alert(3)>"
          requestBody:
            content:
              application/json:
                schema:
                  type: object
                  properties:
                    code: { type: string, description: "<script>alert(4)</script>" }
          responses:
            "200":
              description: ok
              content:
                application/json:
                  schema: { $ref: "#/components/schemas/Session" }
    components:
      schemas:
        Session:
          type: object
          properties:
            session: { type: string, description: "</code></pre><script>alert(5)</script>" }
    """

    @Test func descriptionTextIsEscapedAndSchemasArePrettyPrinted() throws {
        let scratch = try Scratch()
        try scratch.write("flows/described.md", Self.spec)
        try scratch.write("openapi/api.yaml", Self.description)
        let report = try scratch.build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let page = try scratch.read("flows/described.html")
        #expect(!page.lowercased().contains("<script>alert"))
        #expect(!page.contains("<img src=x"))
        #expect(page.contains("login&lt;script&gt;alert(2)&lt;/script&gt;"))
        #expect(page.contains("Sign in &lt;img src=x onerror=alert(3)&gt;"))
        // The request schema, keys sorted; the response's $ref looked up in the components.
        #expect(page.contains("&quot;description&quot; : &quot;&lt;script&gt;alert(4)&lt;/script&gt;&quot;,\n"))
        #expect(page.contains("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(5)&lt;/script&gt;"))
    }

    /// A build keeps the descriptions its flows name, decoded, beside its cache: the next build
    /// lints a changed flow against them instead of decoding them again.
    @Test func theBuildKeepsItsDescriptionsDecoded() throws {
        let scratch = try Scratch()
        try scratch.write("flows/described.md", Self.spec)
        try scratch.write("openapi/api.yaml", Self.description)
        #expect(try scratch.build().succeeded)
        let bytes = try #require(FileManager.default.contents(atPath: scratch.out + "/" + BuildCache.descriptionsPath))
        let entries = try #require(APIDescriptionArchive.read(Array(bytes)))
        #expect(entries.map(\.file) == [scratch.root + "/openapi/api.yaml"])
        #expect(entries.first?.text == Self.description)
        let description = try #require(try entries.first?.result.get())
        #expect(description.paths.contains { $0.operations.contains { $0.summary?.hasPrefix("Sign in") == true } })
    }

    @Test func changedDescriptionRerendersTheUnchangedFlowsPage() throws {
        let scratch = try Scratch()
        try scratch.write("flows/described.md", Self.spec)
        try scratch.write("openapi/api.yaml", Self.description)
        #expect(try scratch.build().succeeded)
        try scratch.write("openapi/api.yaml", Self.description.replacingOccurrences(of: "summary: \"Sign in", with: "summary: \"Log in"))
        let rebuilt = try scratch.build()
        #expect(rebuilt.renderedPages == ["flows/described.html"])
        #expect(try scratch.read("flows/described.html").contains("Log in &lt;img"))
        let again = try scratch.build()
        #expect(again.renderedPages.isEmpty)
    }
}
