import FlowLint
import FlowModel
import FlowOpenAPI
import Foundation
import TestSupport
import Testing

/// `openapi:` in the front matter: the flows' exchanges checked against the backend's OpenAPI
/// description (docs/flow-format.md, "OpenAPI").
@Suite struct OpenAPILintTests {
    /// A scratch project: `flows/NAME.md` beside `openapi/…`, as in the repository.
    struct Project {
        let root: URL

        init(spec name: String, text: String, openAPI files: [String: String]) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-openapi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("flows"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("openapi"), withIntermediateDirectories: true)
            try text.write(to: root.appendingPathComponent("flows/\(name)"), atomically: true, encoding: .utf8)
            for (file, content) in files { try content.write(to: root.appendingPathComponent("openapi/\(file)"), atomically: true, encoding: .utf8) }
        }

        var spec: String { root.appendingPathComponent("flows").path }
        func lint() -> LintRun { Linter().lint(paths: [spec]) }
        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func repositoryFile(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// 1-based line of the first line containing `needle` after line `after`.
    static func line(of needle: String, in text: String, after: Int = 0) throws -> Int {
        let lines = text.components(separatedBy: "\n")
        let index = try #require(lines.indices.first { $0 >= after && lines[$0].contains(needle) }, "no line with \(needle)")
        return index + 1
    }

    static func replacingFirst(_ text: String, _ target: String, with replacement: String, after: Int = 0) throws -> String {
        var lines = text.components(separatedBy: "\n")
        let index = try line(of: target, in: text, after: after) - 1
        lines[index] = lines[index].replacingOccurrences(of: target, with: replacement)
        return lines.joined(separator: "\n")
    }

    @Test func theFlowsThatNameADescriptionLintClean() throws {
        let run = Linter().lint(paths: [packageRoot.appendingPathComponent("flows").path])
        let linked = run.flows.filter { $0.openapi != nil }.map(\.id).sorted()
        #expect(linked == ["apple-refresh-revoke", "apple-server-notifications", "apple-sign-in-web", "apple-sign-in-web-en", "password-login"])
        #expect(run.diagnostics.isEmpty, "\(run.diagnostics.map { "\($0.location) \($0.code) \($0.message)" })")
    }

    /// The brief's three faults in a copy of the Apple web flow: exactly three findings,
    /// each where the fault was written and naming the OpenAPI location.
    @Test func wrongMethodUndeclaredStatusAndMissingFieldGetExactlyThreeDiagnostics() throws {
        let original = try Self.repositoryFile("flows/apple-sign-in-web.md")
        // 1. The session renewal is a POST; the registration step's request becomes a PUT.
        var text = try Self.replacingFirst(original, "POST /api/v1/accounts", with: "PUT /api/v1/accounts")
        let putLine = try Self.line(of: "PUT /api/v1/accounts", in: text)
        // 2. The sign-in step now expects 202, which the description does not declare.
        let loginExpect = try Self.line(of: "```expect", in: text)
        text = try Self.replacingFirst(text, "status: 200", with: "status: 202", after: loginExpect)
        let statusLine = try Self.line(of: "status: 202", in: text)
        let statusText = text.components(separatedBy: "\n")[statusLine - 1]
        let statusColumn = statusText.distance(from: statusText.startIndex, to: try #require(statusText.firstRange(of: "202")).lowerBound) + 1
        // 3. The invalid-phone branch's body loses its required password.
        let branchBody = try Self.line(of: "không-phải-số", in: text)
        text = try Self.replacingFirst(text, ", \"password\": \"Tvl-Test-2025!\"}", with: "}", after: branchBody - 1)
        let project = try Project(spec: "apple.md", text: text, openAPI: ["tvl-backend.yaml": try Self.repositoryFile("openapi/tvl-backend.yaml")])
        defer { project.remove() }

        let found = project.lint().diagnostics
        #expect(found.map(\.code) == ["FS906", "FS903", "FS904"], "\(found.map { "\($0.location) \($0.code) \($0.message)" })")
        guard found.count == 3 else { return }
        let file = project.spec + "/apple.md"
        #expect(found[0].location == SourceLocation(file: file, line: statusLine, column: statusColumn))
        #expect(found[0].message.contains("paths./api/v1/auth/apple/login.post.responses"))
        #expect(found[1].location == SourceLocation(file: file, line: putLine, column: 1))
        #expect(found[1].message.contains("paths./api/v1/accounts has POST"))
        #expect(found[2].location.line == branchBody)
        #expect(found[2].message.contains("'password'"))
        #expect(found[2].message.contains("paths./api/v1/accounts.post.requestBody.content.application/json.schema"))
        // Each points into the description too, at the key it names.
        let description = try Self.repositoryFile("openapi/tvl-backend.yaml")
        let paths = try Self.line(of: "/api/v1/auth/apple/login:", in: description)
        #expect(found[0].related.first?.location.line == (try Self.line(of: "responses:", in: description, after: paths)))
        #expect(found[0].related.first?.location.file.hasSuffix("openapi/tvl-backend.yaml") == true)
    }

    /// An OpenAPI 3.0 description (FinFlow's) converted to 3.1: a typo in a matched path, a
    /// body value of the wrong type and a path the description lacks.
    @Test func pathTypoWrongTypeAndUnknownPathIn30Description() throws {
        let original = try Self.repositoryFile("flows/password-login.md")
        var text = try Self.replacingFirst(original, "$.token: { type: string }", with: "$.tokn: { type: string }")
        let typo = try Self.line(of: "$.tokn", in: text)
        text = try Self.replacingFirst(text, "\"username\": \"{{username}}\"", with: "\"username\": 42")
        let profileStep = try Self.line(of: "### 4.", in: text)
        text = try Self.replacingFirst(text, "GET /api/users/my-profile", with: "GET /api/users/my-profil", after: profileStep)
        let unknown = try Self.line(of: "GET /api/users/my-profil", in: text, after: profileStep)
        let project = try Project(spec: "login.md", text: text, openAPI: ["finflow-backend.yaml": try Self.repositoryFile("openapi/finflow-backend.yaml")])
        defer { project.remove() }

        let found = project.lint().diagnostics.filter { $0.code.hasPrefix("FS9") }
        #expect(found.map(\.code) == ["FS905", "FS907", "FS902"], "\(found.map { "\($0.location) \($0.code) \($0.message)" })")
        guard found.count == 3 else { return }
        #expect(found[0].message.contains("$.username is an integer, but paths./auth/login.post.requestBody.content.application/json.schema wants string"))
        #expect(found[1].location.line == typo)
        #expect(found[1].message.contains("$.tokn"))
        #expect(found[2].location.line == unknown)
        #expect(found[2].location.column == 5)
        #expect(found[2].hint == "did you mean '/users/my-profile'?")
    }

    static let minimalSpec = """
        ---
        id: mini
        title: Mini
        openapi: OPENAPI
        actors:
          app: { name: App, role: client }
          backend: { name: Backend, role: backend }
        ---
        # Mini

        ## Steps

        ### 1. App pings
        app → backend

        ```http
        GET /ping
        ```

        ```expect
        status: 200
        ```
        """

    /// Nine levels of nine aliases each: 9^9 (387 420 489) scalars once expanded.
    static let billionLaughs: String = {
        var lines = ["openapi: 3.1.0", "info:", "  title: t", "  version: '1'", "  x-lol:", "    a0: &a0 [" + Array(repeating: "lol", count: 9).joined(separator: ", ") + "]"]
        for level in 1...8 { lines.append("    a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]") }
        return (lines + ["paths: {}"]).joined(separator: "\n") + "\n"
    }()

    /// An OpenAPI description whose `x-deep` extension nests 300 mappings by indentation.
    static func deeplyIndented(lineEnding: String) -> String {
        var lines = ["openapi: 3.1.0", "info: { title: t, version: '1' }", "paths: {}", "x-deep:"]
        for level in 1..<300 { lines.append(String(repeating: "  ", count: level) + "k\(level):") }
        lines.append(String(repeating: "  ", count: 300) + "v")
        return lines.joined(separator: lineEnding) + lineEnding
    }

    /// A description that cannot be used is one clear FS901 at the `openapi:` key: no crash,
    /// no finding about the exchanges, lint exits 1.
    @Test(arguments: [
        ("missing.yaml", nil, "does not exist"),
        ("bad.yaml", "openapi: 3.1.0\ninfo: [unclosed\n", "is not valid YAML or JSON"),
        ("swagger.yaml", "swagger: '2.0'\ninfo: { title: x, version: '1' }\npaths: {}\n", "swagger 2.0"),
        ("noinfo.yaml", "openapi: 3.1.0\npaths: {}\n", "not a valid OpenAPI 3.1.0 description"),
        ("dangling.yaml", "openapi: 3.1.0\ninfo: { title: x, version: '1' }\npaths:\n  /ping:\n    get:\n      responses:\n        '200': { $ref: '#/components/responses/Nope' }\n", "at .paths['/ping'].get.responses.200"),
        ("deep.json", String(repeating: "[", count: 500) + String(repeating: "]", count: 500), "nested 500 levels deep"),
        ("https://api.example/openapi.yaml", nil, "is a URL"),
        ("laughs.yaml", billionLaughs, "expands to more than 2000000 YAML nodes"),
        // Nesting by indentation, with either line ending: CRLF lines once escaped the bound
        // (the guard read `Character`s, and "\r\n" is one), leaving libyaml's own limit to fail
        // with a message of some thousand spaces.
        ("indented.yaml", deeplyIndented(lineEnding: "\n"), "nested 300 levels deep"),
        ("indented-crlf.yaml", deeplyIndented(lineEnding: "\r\n"), "nested 300 levels deep"),
    ] as [(String, String?, String)])
    func unusableDescriptionIsOneDiagnostic(file: String, content: String?, message: String) throws {
        let text = Self.minimalSpec.replacingOccurrences(of: "OPENAPI", with: file.contains("://") ? file : "../openapi/\(file)")
        let project = try Project(spec: "mini.md", text: text, openAPI: content.map { [file: $0] } ?? [:])
        defer { project.remove() }
        let run = project.lint()
        #expect(run.diagnostics.map(\.code) == ["FS901"], "\(run.diagnostics.map { "\($0.code) \($0.message)" })")
        #expect(run.diagnostics.first?.message.contains(message) == true, "\(run.diagnostics.first?.message ?? "")")
        #expect(run.diagnostics.first?.location.line == 4)
        #expect(run.exitCode(strict: false) == 1)
    }

    /// A description using each version's own schema semantics (see `schemaSemanticsPerVersion`).
    static func semanticsDescription(version: String) -> String {
        let nullable = version.hasPrefix("3.0") ? "type: string, nullable: true" : "type: [string, \"null\"]"
        return """
            openapi: \(version)
            info: { title: t, version: '1' }
            servers:
              - url: https://api.example/{base}
                variables: { base: { default: v2 } }
            paths:
              /items/{id}:
                put:
                  parameters:
                    - { name: id, in: path, required: true, schema: { type: string } }
                  requestBody:
                    required: true
                    content:
                      application/json:
                        schema:
                          type: object
                          additionalProperties: false
                          required: [note, owner]
                          properties:
                            note: { \(nullable) }
                            count: { type: integer }
                            owner:
                              type: object
                              required: [name]
                              properties: { name: { type: string } }
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              item: { type: object, properties: { tags: { type: array, items: { type: string } } } }
                    4XX: { description: refused }
            """
    }

    /// Schema semantics from the OpenAPI specification, each in its version: 3.0 `nullable`
    /// (converted by OpenAPIKitCompat), 3.1 `type: [string, "null"]`, required properties of
    /// nested objects, `additionalProperties: false`, a server URL's path with a variable's
    /// default, a `{param}` segment taking a placeholder, and a `4XX` range covering 404.
    @Test(arguments: ["3.0.3", "3.1.0"])
    func schemaSemanticsPerVersion(version: String) throws {
        let description = Self.semanticsDescription(version: version)
        let spec = Self.minimalSpec.replacingOccurrences(of: "OPENAPI", with: "../openapi/api.yaml").replacingOccurrences(of: """
            GET /ping
            ```

            ```expect
            status: 200
            """, with: """
            PUT /v2/items/{{item}}
            Content-Type: application/json

            {"note": null, "count": 1.5, "owner": {"nick": "x"}, "extra": {{item}}}
            ```

            ```expect
            status: [200, 404]
            json:
              $.item.tags[0]: { type: string }
              $.item.size: { type: number }
            """).replacingOccurrences(of: "actors:", with: "variables:\n  item: a1\nactors:")
        let project = try Project(spec: "mini.md", text: spec, openAPI: ["api.yaml": description])
        defer { project.remove() }
        let found = project.lint().diagnostics.map { "\($0.code) \($0.message)" }
        let body = "paths./items/{id}.put.requestBody.content.application/json.schema"
        // Findings at one place are ordered by code, then message (Diagnostic.sortedForOutput).
        #expect(found == [
            "FS904 the body lacks 'name' in $.owner, required by \(body)",
            "FS905 $.count is a number, but \(body) wants integer",
            "FS905 the body has 'extra', which \(body) does not allow (additionalProperties: false)",
            "FS907 $.item.size is not in the response schema paths./items/{id}.put.responses.200.content.application/json.schema",
        ], "\(found)")
    }

    /// A schema that refers to itself (a tree) is valid OpenAPI: paths into it are walked, a
    /// typo deep inside is found, nothing loops.
    @Test func recursiveSchemaIsWalked() throws {
        let description = """
            openapi: 3.1.0
            info: { title: t, version: '1' }
            paths:
              /ping:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: { $ref: '#/components/schemas/Node' }
            components:
              schemas:
                Node:
                  type: object
                  properties:
                    name: { type: string }
                    child: { $ref: '#/components/schemas/Node' }
            """
        let spec = Self.minimalSpec.replacingOccurrences(of: "OPENAPI", with: "../openapi/api.yaml")
            .replacingOccurrences(of: "status: 200", with: "status: 200\njson:\n  $.child.child.child.name: { type: string }\n  $.child.child.nam: { type: string }")
        let project = try Project(spec: "mini.md", text: spec, openAPI: ["api.yaml": description])
        defer { project.remove() }
        let found = project.lint().diagnostics
        #expect(found.map(\.code) == ["FS907"], "\(found.map(\.message))")
        #expect(found.first?.message.hasPrefix("$.child.child.nam is not in") == true)
    }

    /// The descriptions in openapi/ are valid for an independent validator (Python's
    /// openapi-spec-validator, installed by scripts/setup.sh --test).
    @Test func repositoryDescriptionsPassOpenAPISpecValidator() throws {
        let python = try #require(which("python3"), "python3 is needed (scripts/setup.sh --test)")
        for file in ["openapi/tvl-backend.yaml", "openapi/finflow-backend.yaml"] {
            let result = try runProcess(python, ["-m", "openapi_spec_validator", file], currentDirectory: packageRoot)
            #expect(result.status == 0, "\(file): \(result.output.prefix(2000))")
            #expect(result.output.contains("\(file): OK"), "\(result.output.prefix(500))")
        }
        // The validator is a real oracle: it refuses what flowspec refuses.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-openapi-\(UUID().uuidString).yaml")
        try "openapi: 3.1.0\npaths: {}\n".write(to: broken, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: broken) }
        #expect(try runProcess(python, ["-m", "openapi_spec_validator", broken.path]).status != 0)
    }
}

/// A body's placeholders stand for unknown values outside strings; text without `{{` is parsed
/// as written (the fast path), nested objects are not taken for placeholders.
@Suite struct JSONBodyPlaceholderTests {
    @Test func placeholdersOutsideStringsOnly() throws {
        let unknown = JSONNode.string(SchemaChecks.unknownValue)
        #expect(SchemaChecks.jsonBody(#"{"a": {"b": 1}, "c": [true]}"#) == JSONNode.parse(#"{"a": {"b": 1}, "c": [true]}"#))
        #expect(SchemaChecks.jsonBody(#"{"code": {{code}}, "n": 2}"#) == .object(JSONObject([("code", unknown), ("n", .int(2))])))
        #expect(SchemaChecks.jsonBody(#"{"code": "{{code}}"}"#) == JSONNode.parse(#"{"code": "{{code}}"}"#))
        #expect(SchemaChecks.jsonBody(#"{"a": {{x}}}"#) == .object(JSONObject([("a", unknown)])))
        #expect(SchemaChecks.jsonBody("not json") == nil)
    }

    /// The byte loop writes what the Character loop it replaced wrote (written out here), on
    /// random bodies of quotes, escapes, braces and placeholders, ASCII and not.
    @Test func bytePlaceholdersAreTheCharacterPlaceholders() {
        let alphabet = ["{", "}", "{{", "}}", "{{x}}", "\"", "\\", "a", "1", ",", ":", " ", "é", "ạ", "{{ code }}", "[", "]", "\\\""]
        var generator = SplitMix(seed: 41)
        for _ in 0..<4000 {
            let body = (0..<Int.random(in: 0...16, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            var reference = ""
            var inString = false, escaped = false
            var index = body.startIndex
            while index < body.endIndex {
                let character = body[index]
                if !inString, character == "{", body[index...].hasPrefix("{{"), let close = body[index...].range(of: "}}") {
                    reference += JSONNode.quote(SchemaChecks.unknownValue)
                    index = close.upperBound
                    continue
                }
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                } else if character == "\"" {
                    inString = true
                }
                reference.append(character)
                index = body.index(after: index)
            }
            #expect(String(decoding: SchemaChecks.replacingPlaceholders(body), as: UTF8.self) == reference, "\(body.debugDescription)")
        }
    }
}
