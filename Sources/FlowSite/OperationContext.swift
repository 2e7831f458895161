import FlowModel
import FlowOpenAPI
import Foundation

/// The OpenAPI descriptions a build's flows name (`openapi:`), each loaded once per build
/// however many flows and pages use it. A description that cannot be loaded is remembered as
/// nil: the page then shows no operation (lint reports the problem).
final class APIDescriptionCache: Sendable {
    private let loaded = Locked<[String: APIDescription?]>([:])
    private let hashes = Locked<[String: String]>([:])
    /// `openapi:` as written and the spec's file → the description (resolving a path costs a
    /// Foundation path operation; a page asks once per step).
    private let byFlow = Locked<[String: APIDescription?]>([:])

    /// The file `openapi:` of `flow` points at, or nil when it names none (or not a usable path).
    static func file(for flow: Flow) -> String? {
        guard let written = flow.openapi, case .success(let file) = APIDescriptionLoader.resolve(written, specFile: flow.file) else { return nil }
        return file
    }

    func description(for flow: Flow) -> APIDescription? {
        guard let written = flow.openapi else { return nil }
        let key = flow.file + "\u{1F}" + written
        if let known = byFlow.withLock({ $0[key] }) { return known }
        let description: APIDescription? = Self.file(for: flow).flatMap { file in
            loaded.withLock { cache in
                if let known = cache[file] { return known }
                let description = try? APIDescriptionLoader.load(file: file).get()
                cache[file] = .some(description)
                return description
            }
        }
        byFlow.withLock { $0[key] = .some(description) }
        return description
    }

    /// The content hash of a description file for page keys ("-" for none, "missing" when unreadable).
    func contentHash(of file: String) -> String {
        if file.isEmpty { return "-" }
        return hashes.withLock { cache in
            if let known = cache[file] { return known }
            let hash = (try? FileSystem.read(file)).map { ContentHash.of($0).description } ?? "missing"
            cache[file] = hash
            return hash
        }
    }
}

// A step's operation: the line naming it and the request and response schemas, as JSON.
extension PageRenderer {
    func operationContext(request: RequestTemplate, expectation: Expectation?, flow: Flow, labels: Labels) -> TemplateValue {
        guard let description = apiDescriptions.description(for: flow),
              case .operation(let path, let operation) = description.match(method: request.method, target: request.target)
        else { return false }
        var schemas: [TemplateValue] = []
        if let schema = operation.requestBody?.json?.schemaText {
            schemas.append(["title": .string(labels["operation_request_schema"]), "json": .string(schema.text)])
        }
        let responses: [APIResponse]
        if let status = expectation?.status {
            responses = Self.declaredResponses(operation, status: status)
        } else {
            responses = operation.responses
        }
        for response in responses {
            guard let schema = response.json?.schemaText else { continue }
            schemas.append(["title": .string(labels["operation_response_schema"] + " " + response.status), "json": .string(schema.text)])
        }
        return [
            "method": .string(operation.method),
            "path": .string(path.template),
            "operationId": .optional(operation.operationID),
            "summary": .optional(operation.summary),
            "hasSchemas": .bool(!schemas.isEmpty),
            "schemas": .list(schemas),
        ]
    }

    /// The responses an expected status can come from (every one of a class for `4xx`).
    static func declaredResponses(_ operation: APIOperation, status: StatusExpectation) -> [APIResponse] {
        var seen: Set<String> = []
        let found = status.codes.flatMap { operation.responses(for: $0) } + status.classes.flatMap { operation.responses(forClass: $0) }
        return found.filter { seen.insert($0.status).inserted }
    }
}
