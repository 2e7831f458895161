import FlowModel
import FlowOpenAPI

/// A flow with `openapi:` has every `http` and `expect` block checked against the description:
/// the path and method exist (FS902, FS903), the JSON body has the operation's required fields
/// (FS904) and types (FS905), every expected status is declared (FS906), and every matched or
/// captured JSON path is in the response schema (FS907). Each message names the OpenAPI
/// location; the related location points into the description's file.
struct OpenAPIRule: FlowRule {
    static let codes: [DiagnosticCode] = [
        .descriptionUnusable, .pathNotDeclared, .methodNotDeclared, .requiredFieldMissing, .bodyDoesNotFit, .statusNotDeclared, .jsonPathNotInSchema,
    ]

    func check(_ context: RuleContext, into diagnostics: inout [Diagnostic]) {
        guard let loaded = context.openAPI else { return }
        let flow = context.flow
        let description: APIDescription
        switch loaded {
        case .failure(let problem):
            let at = flow.keyLocations["openapi"] ?? flow.location
            diagnostics.append(.error(.descriptionUnusable, at, problem.message, hint: problem.hint))
            return
        case .success(let loaded):
            description = loaded
        }
        let checker = ExchangeChecker(description: description)
        for step in flow.steps {
            let stepOperation = step.exchange.flatMap { checker.request($0.request, into: &diagnostics) }
            if let exchange = step.exchange, let expectation = exchange.expectation, let stepOperation {
                checker.expectation(expectation, of: stepOperation, into: &diagnostics)
            }
            for alternate in step.alternates where alternate.request != nil || alternate.expectation != nil {
                let operation = alternate.request.map { checker.request($0, into: &diagnostics) } ?? stepOperation
                if let expectation = alternate.expectation, let operation {
                    checker.expectation(expectation, of: operation, into: &diagnostics)
                }
            }
        }
    }
}

/// The checks of one request and one expectation against a description.
struct ExchangeChecker {
    let description: APIDescription

    private func error(_ code: DiagnosticCode, _ at: SourceLocation, _ message: String, hint: String? = nil, _ location: APILocation) -> Diagnostic {
        .error(code, at, message, hint: hint, related: related(location))
    }

    /// Checks the request line and body; returns the operation when the path and method exist.
    func request(_ request: RequestTemplate, into diagnostics: inout [Diagnostic]) -> APIOperation? {
        let fence = request.location
        let methodAt = SourceLocation(file: fence.file, line: fence.line + 1, column: fence.column)
        let pathAt = SourceLocation(file: fence.file, line: fence.line + 1, column: fence.column + request.method.count + 1)
        switch description.match(method: request.method, target: request.target) {
        case .pathNotDeclared(let closest):
            diagnostics.append(error(.pathNotDeclared, pathAt, "\(request.path) is not declared in \(description.file) (paths)",
                                     hint: closest.map { "did you mean '\($0)'?" } ?? "add the path to the description, or correct the request line",
                                     APILocation(["paths"])))
            return nil
        case .methodNotDeclared(let path):
            let declared = path.operations.map(\.method).joined(separator: ", ")
            diagnostics.append(error(.methodNotDeclared, methodAt, "\(request.method) is not declared for \(path.template) in \(description.file) (\(path.location) has \(declared.isEmpty ? "no operation" : declared))",
                                     hint: "use a declared method, or add `\(request.method.lowercased()):` under \(path.location)", path.location))
            return nil
        case .operation(_, let operation):
            body(request, operation, into: &diagnostics)
            return operation
        }
    }

    private func body(_ request: RequestTemplate, _ operation: APIOperation, into diagnostics: inout [Diagnostic]) {
        let fence = request.location
        let bodyAt = SourceLocation(file: fence.file, line: fence.line + request.headers.count + 3, column: fence.column)
        let methodAt = SourceLocation(file: fence.file, line: fence.line + 1, column: fence.column)
        let text = request.body?.trimmingCharacters() ?? ""
        guard let declared = operation.requestBody else {
            if !text.isEmpty {
                diagnostics.append(error(.bodyDoesNotFit, bodyAt, "the request sends a body, but \(operation.location) declares no requestBody",
                                         hint: "remove the body, or declare it in the description", operation.location))
            }
            return
        }
        if text.isEmpty {
            if declared.required {
                diagnostics.append(error(.requiredFieldMissing, methodAt, "\(declared.location) is required, but the request sends no body",
                                         hint: "add the body after a blank line under the headers", declared.location))
            }
            return
        }
        guard let json = declared.json, let schema = json.schema, let value = SchemaChecks.jsonBody(text) else { return }
        for problem in SchemaChecks.problems(value, against: schema, in: description.components) {
            switch problem {
            case .missingRequired(let at, let name):
                diagnostics.append(error(.requiredFieldMissing, bodyAt, "the body lacks '\(name)'\(Self.inside(at)), required by \(json.location)",
                                         hint: "add \"\(name)\" to the body", json.location))
            case .wrongType(let at, let expected, let found):
                diagnostics.append(error(.bodyDoesNotFit, bodyAt, "\(at) is \(Self.article(found)) \(found), but \(json.location) wants \(expected.joined(separator: " or "))",
                                         json.location))
            case .notAllowed(let at, let name):
                diagnostics.append(error(.bodyDoesNotFit, bodyAt, "the body has '\(name)'\(Self.inside(at)), which \(json.location) does not allow (additionalProperties: false)",
                                         json.location))
            }
        }
    }

    private static func inside(_ path: JSONPath) -> String { path.components.isEmpty ? "" : " in \(path)" }
    private static func article(_ word: String) -> String { word.first.map { "aeiou".contains($0) } == true ? "an" : "a" }
}
