import FlowModel

/// The OpenAPI 3.1 description an exported Arazzo document names as its source: every
/// operation the flows' `http` blocks use (one per method and path template), with its path,
/// query and header parameters, whether it takes a body, and the statuses the flows expect.
/// The server's host is a variable (`host`, default `127.0.0.1:8080`) so a runner points it at
/// any deployment (`http://{host}` first, `https://{host}` second).
public struct OpenAPIDescription: Codable, Hashable, Sendable {
    public var openapi = "3.1.0"
    public var info: Info
    public var servers: [Server]
    public var paths: [String: [String: Operation]]

    public struct Info: Codable, Hashable, Sendable {
        public var title: String
        public var version: String
        public var description: String?
    }

    public struct Server: Codable, Hashable, Sendable {
        public var url: String
        public var variables: [String: Variable]
    }

    public struct Variable: Codable, Hashable, Sendable {
        public var `default`: String
        public var description: String?
    }

    public struct Operation: Codable, Hashable, Sendable {
        public var operationId: String
        public var summary: String
        public var parameters: [Parameter]?
        public var requestBody: Body?
        public var responses: [String: Response]
    }

    public struct Parameter: Codable, Hashable, Sendable {
        public var name: String
        public var location: String
        public var required: Bool?
        public var schema: Schema

        enum CodingKeys: String, CodingKey {
            case name, required, schema
            case location = "in"
        }
    }

    public struct Schema: Codable, Hashable, Sendable {
        public var type: String
    }

    public struct Body: Codable, Hashable, Sendable {
        public var required: Bool
        public var content: [String: MediaType]
    }

    public struct MediaType: Codable, Hashable, Sendable {
        public var schema: Schema
    }

    public struct Response: Codable, Hashable, Sendable {
        public var description: String
    }

    /// Headers OpenAPI says a parameter must not describe.
    static let reservedHeaders: Set<String> = ["accept", "content-type", "authorization"]

    public init(flows: [Flow], title: String) {
        info = Info(title: title, version: "1.0.0",
                    description: "The operations the flows call, derived by flowspec from their http and expect blocks.")
        let host = ["host": Variable(default: "127.0.0.1:8080", description: "host:port of the backend under test")]
        servers = [Server(url: "http://{host}", variables: host), Server(url: "https://{host}", variables: host)]
        var paths: [String: [String: Operation]] = [:]
        for flow in flows {
            for step in flow.steps {
                guard let exchange = step.exchange else { continue }
                var uses = [(exchange.request, exchange.expectation)]
                for alternate in step.alternates where alternate.request != nil || alternate.expectation != nil {
                    uses.append((alternate.request ?? exchange.request, alternate.expectation ?? exchange.expectation))
                }
                for (request, expectation) in uses {
                    let shape = ArazzoRequest(request, producers: [:])
                    let method = shape.method.lowercased()
                    var operation = paths[shape.path]?[method] ?? Self.operation(shape, summary: step.title)
                    for key in Self.responseKeys(expectation?.status) { operation.responses[key] = Response(description: "Expected by the flow") }
                    paths[shape.path, default: [:]][method] = operation
                }
            }
        }
        for (path, operations) in paths {
            for (method, operation) in operations where operation.responses.isEmpty {
                paths[path]?[method]?.responses["default"] = Response(description: "Expected by the flow")
            }
        }
        self.paths = paths
    }

    static func operation(_ shape: ArazzoRequest, summary: String) -> Operation {
        let parameters = shape.parameters.filter { !($0.location == "header" && reservedHeaders.contains($0.name.lowercased())) }
            .map { Parameter(name: $0.name, location: $0.location ?? "query", required: $0.location == "path" ? true : nil, schema: Schema(type: "string")) }
        let body = shape.requestBody.map { body in
            let json = body.contentType.map { $0.lowercased().contains("json") } ?? true
            return Body(required: true, content: [body.contentType ?? "application/json": MediaType(schema: Schema(type: json ? "object" : "string"))])
        }
        let id = shape.method.lowercased() + shape.path.map { $0.isLetter || $0.isNumber ? $0 : "-" }.reduce(into: "") { out, character in
            if character != "-" || out.last != "-" { out.append(character) }
        }
        return Operation(operationId: id.hasSuffix("-") ? String(id.dropLast()) : id, summary: summary,
                         parameters: parameters.isEmpty ? nil : parameters, requestBody: body, responses: [:])
    }

    /// `200`, `4XX` (an operation whose flows expect no status gets `default`).
    static func responseKeys(_ status: StatusExpectation?) -> [String] {
        guard let status else { return [] }
        return status.codes.map(String.init) + status.classes.map { "\($0)XX" }
    }
}
