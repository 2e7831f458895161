import FlowModel

/// What flowspec needs of one OpenAPI description: its operations by path template and
/// method, with their request-body and response schemas (path item, request, response and
/// content references resolved; schema references looked up in `components` when walked), and
/// where each part was written in the file. Sendable values; built once per file by `APIDescriptionLoader`.
public struct APIDescription: Sendable {
    /// The file as the flow named it, resolved against the spec's folder.
    public var file: String
    /// The document's `openapi` version as written (`3.0.3`, `3.1.0`).
    public var version: String
    /// Path prefixes of the `servers` URLs (`/api/v1` for `https://host/api/v1`); `""` when
    /// no server has a path. A request's target is matched after one of them.
    public var basePaths: [String]
    public var paths: [APIPath]
    /// Where a location in the document (`paths./login.post.responses`) was written.
    public var lines: [String: SourceLocation]
    /// The document's `components.schemas` by name, for the `$ref`s inside schemas.
    public var components: [String: APISchema]

    public init(file: String, version: String, basePaths: [String], paths: [APIPath], lines: [String: SourceLocation] = [:],
                components: [String: APISchema] = [:]) {
        self.file = file
        self.version = version
        self.basePaths = basePaths
        self.paths = paths
        self.lines = lines
        self.components = components
    }

    /// The written position of `location`, or of its nearest written ancestor.
    public func line(of location: APILocation) -> SourceLocation? {
        var components = location.components
        while !components.isEmpty {
            if let found = lines[APILocation(components).description] { return found }
            components.removeLast()
        }
        return nil
    }
}

/// A location inside an OpenAPI document, written as OpenAPI tools and this project's docs
/// write it: keys joined by dots, path templates as they are (`paths./login.post.responses`).
public struct APILocation: Hashable, Sendable, CustomStringConvertible {
    public var components: [String]

    public init(_ components: [String]) { self.components = components }

    public func appending(_ more: String...) -> APILocation { APILocation(components + more) }

    public var description: String { components.joined(separator: ".") }
}

/// A path template (`/users/{id}`) and the operations declared on it.
public struct APIPath: Sendable {
    public var template: String {
        didSet { segments = Self.segments(of: template) }
    }
    public var operations: [APIOperation]
    /// Segments of the template; `nil` for a `{parameter}` segment. Split once: every request
    /// line a lint or a page matches is compared with every path.
    private(set) var segments: [String?]

    public init(template: String, operations: [APIOperation]) {
        self.template = template
        self.operations = operations
        segments = Self.segments(of: template)
    }

    public var location: APILocation { APILocation(["paths", template]) }

    public func operation(_ method: String) -> APIOperation? {
        operations.first { $0.method == method.uppercased() }
    }

    static func segments(of template: String) -> [String?] {
        template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? nil : String(segment)
        }
    }
}

public struct APIOperation: Sendable {
    /// Upper-case HTTP method.
    public var method: String
    public var operationID: String?
    public var summary: String?
    public var requestBody: APIRequestBody?
    /// Responses in document order.
    public var responses: [APIResponse]
    public var location: APILocation

    public init(method: String, operationID: String?, summary: String?, requestBody: APIRequestBody?, responses: [APIResponse], location: APILocation) {
        self.method = method
        self.operationID = operationID
        self.summary = summary
        self.requestBody = requestBody
        self.responses = responses
        self.location = location
    }

    /// The responses a status can come from: its exact code first, then its range (`4XX`),
    /// then `default`. Empty when the status is not declared.
    public func responses(for status: Int) -> [APIResponse] {
        if let exact = responses.first(where: { $0.status == String(status) }) { return [exact] }
        if let range = responses.first(where: { $0.status.uppercased() == "\(status / 100)XX" }) { return [range] }
        return responses.filter { $0.status == "default" }
    }

    /// The responses a status class (`4` for `4xx`) can come from.
    public func responses(forClass leading: Int) -> [APIResponse] {
        let inClass = responses.filter { $0.status.first == Character(String(leading)) }
        return inClass.isEmpty ? responses.filter { $0.status == "default" } : inClass
    }
}

/// `requestBody`: whether it is required, and the schema per media type.
public struct APIRequestBody: Sendable {
    public var required: Bool
    public var content: [APIContent]
    public var location: APILocation

    public init(required: Bool, content: [APIContent], location: APILocation) {
        self.required = required
        self.content = content
        self.location = location
    }

    /// The JSON media type's content (`application/json`, or any `+json`), if declared.
    public var json: APIContent? { content.first { $0.isJSON } }
}

public struct APIResponse: Sendable {
    /// `200`, `4XX` or `default`, as written.
    public var status: String
    public var content: [APIContent]
    public var location: APILocation

    public init(status: String, content: [APIContent], location: APILocation) {
        self.status = status
        self.content = content
        self.location = location
    }

    public var json: APIContent? { content.first { $0.isJSON } }
}

/// One media type of a body and its schema (nil: the description gives none).
public struct APIContent: Sendable {
    public var mediaType: String
    public var schema: APISchema?
    /// The schema as a page shows it (nil when there is none).
    public var schemaText: APISchemaText?
    public var location: APILocation

    public init(mediaType: String, schema: APISchema?, schemaText: APISchemaText?, location: APILocation) {
        self.mediaType = mediaType
        self.schema = schema
        self.schemaText = schemaText
        self.location = location
    }

    public var isJSON: Bool {
        // As written in most descriptions: what the general reading below says of it, without
        // lowercasing, splitting and trimming a copy (pages ask once per response shown).
        if mediaType == "application/json" { return true }
        let type = String(mediaType.lowercased().split(separator: ";").first ?? "").trimmingCharacters()
        return type == "application/json" || type.hasSuffix("+json") || type == "*/*"
    }
}
