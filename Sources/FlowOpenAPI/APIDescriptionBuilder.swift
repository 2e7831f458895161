import FlowModel
import Foundation
import OpenAPIKit
import Yams

/// Turns OpenAPIKit's document into `APIDescription`, and records where the paths, operations,
/// request bodies and responses were written (from Yams' node marks). References to path
/// items, requests, responses and contents are looked up in the components here; schemas keep
/// theirs (a schema may refer to itself) and are resolved as they are walked.
struct APIDescriptionBuilder {
    let file: String
    let version: String
    let root: Node

    func build(_ document: OpenAPI.Document) -> APIDescription {
        let components = document.components
        var paths: [APIPath] = []
        for (path, reference) in document.paths {
            guard let item = components[reference] else { continue }
            let template = path.rawValue
            let pathLocation = APILocation(["paths", template])
            let operations = item.endpoints.map { endpoint in
                operation(endpoint.operation, method: endpoint.method.rawValue.uppercased(),
                          at: pathLocation.appending(endpoint.method.rawValue.lowercased()), components)
            }
            paths.append(APIPath(template: template, operations: operations))
        }
        return APIDescription(file: file, version: version, basePaths: basePaths(document.servers), paths: paths, lines: lines(),
                              components: APISchema.components(components))
    }

    private func operation(_ operation: OpenAPI.Operation, method: String, at location: APILocation, _ components: OpenAPI.Components) -> APIOperation {
        let body = operation.requestBody.flatMap { components[$0] }.map { body in
            APIRequestBody(required: body.required, content: content(body.content, at: location.appending("requestBody", "content"), components),
                           location: location.appending("requestBody"))
        }
        let responses = operation.responses.compactMap { status, reference -> APIResponse? in
            guard let response = components[reference] else { return nil }
            let at = location.appending("responses", status.rawValue)
            return APIResponse(status: status.rawValue, content: content(response.content, at: at.appending("content"), components), location: at)
        }
        return APIOperation(method: method, operationID: operation.operationId, summary: operation.summary,
                            requestBody: body, responses: responses, location: location)
    }

    private func content(_ map: OpenAPI.Content.Map, at location: APILocation, _ components: OpenAPI.Components) -> [APIContent] {
        map.compactMap { type, reference -> APIContent? in
            guard let content = components[reference] else { return nil }
            return APIContent(mediaType: type.rawValue, schema: content.schema.map { APISchema($0, components: components) },
                              schemaText: content.schema.map { APISchemaText($0, components: components) },
                              location: location.appending(type.rawValue, "schema"))
        }
    }

    /// Path prefixes of the server URLs, variables replaced by their defaults.
    private func basePaths(_ servers: [OpenAPI.Server]) -> [String] {
        var prefixes: [String] = []
        for server in servers {
            var url = server.urlTemplate.rawValue
            for (name, variable) in server.variables { url = url.replacingOccurrences(of: "{\(name)}", with: variable.default) }
            var path = url
            if let scheme = url.range(of: "://") {
                let afterHost = url[scheme.upperBound...]
                path = afterHost.firstIndex(of: "/").map { String(afterHost[$0...]) } ?? ""
            }
            if path.hasSuffix("/") { path.removeLast() }
            if !prefixes.contains(path) { prefixes.append(path) }
        }
        return prefixes
    }

    /// Key positions of the parts lint names, as `paths./x.post.responses.200` → file:line:col.
    private func lines() -> [String: SourceLocation] {
        var found: [String: SourceLocation] = [:]
        func record(_ location: APILocation, _ key: Node) {
            guard let mark = key.mark else { return }
            found[location.description] = SourceLocation(file: file, line: mark.line, column: mark.column)
        }
        guard let pathsPair = root.mapping?.first(where: { $0.key.string == "paths" }) else { return found }
        record(APILocation(["paths"]), pathsPair.key)
        for (pathKey, item) in pathsPair.value.mapping ?? [:] {
            guard let template = pathKey.string else { continue }
            let pathLocation = APILocation(["paths", template])
            record(pathLocation, pathKey)
            for (methodKey, operation) in item.mapping ?? [:] {
                guard let method = methodKey.string else { continue }
                let operationLocation = pathLocation.appending(method.lowercased())
                record(operationLocation, methodKey)
                for (partKey, part) in operation.mapping ?? [:] where partKey.string == "responses" || partKey.string == "requestBody" {
                    record(operationLocation.appending(partKey.string!), partKey)
                    guard partKey.string == "responses" else { continue }
                    for (statusKey, _) in part.mapping ?? [:] {
                        if let status = statusKey.string { record(operationLocation.appending("responses", status), statusKey) }
                    }
                }
            }
        }
        return found
    }
}
