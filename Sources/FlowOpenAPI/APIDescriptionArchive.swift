import FlowModel

/// Decoded descriptions as bytes, so that the next process finds them decoded: a site build
/// keeps the descriptions its flows name beside its cache, and the next build of the same site
/// reads them back instead of decoding again (the first decode in a process costs 20–30 ms of
/// OpenAPIKit's first-use work however small the file; reading an archive back costs well under
/// one). Each entry holds the exact text it was made from, and is used only for that text.
enum APIDescriptionArchive {
    /// Bump whenever `APIDescriptionBuilder`, `APISchema`, the validations or this format change:
    /// an archive of another version is ignored.
    static let version = "flowspec-openapi-archive 1"

    /// Schemas nest at most this deep in an archive (descriptions nest at most 128 levels).
    static let maximumDepth = 256

    typealias Entry = (file: String, text: String, result: Result<APIDescription, APIDescriptionProblem>)

    static func write(_ entries: [Entry]) -> [UInt8] {
        var writer = FieldWriter()
        writer.line(version)
        writer.count(entries.count)
        for entry in entries {
            writer.field(entry.file)
            writer.field(entry.text)
            switch entry.result {
            case .failure(let problem):
                writer.count(0)
                writer.field(problem.message)
                writer.optional(problem.hint)
            case .success(let description):
                writer.count(1)
                writer.description(description)
            }
        }
        return writer.bytes
    }

    /// The entries of an archive; nil when it is of another version, or damaged anywhere.
    static func read(_ bytes: [UInt8]) -> [Entry]? {
        var reader = FieldReader(bytes)
        guard reader.line() == version, let count = reader.count(), count <= reader.remaining / 12 else { return nil }
        var entries: [Entry] = []
        for _ in 0..<count {
            guard let file = reader.field(), let text = reader.field(), let tag = reader.count() else { return nil }
            switch tag {
            case 0:
                guard let message = reader.field(), let hint = reader.optional() else { return nil }
                entries.append((file, text, .failure(APIDescriptionProblem(message, hint: hint))))
            case 1:
                guard let description = reader.description() else { return nil }
                entries.append((file, text, .success(description)))
            default:
                return nil
            }
        }
        return reader.atEnd ? entries : nil
    }
}

extension FieldWriter {
    fileprivate mutating func flag(_ value: Bool) { count(value ? 1 : 0) }

    fileprivate mutating func optional(_ text: String?) {
        flag(text != nil)
        if let text { field(text) }
    }

    fileprivate mutating func strings(_ list: [String]) {
        count(list.count)
        for text in list { field(text) }
    }

    fileprivate mutating func description(_ description: APIDescription) {
        field(description.file)
        field(description.version)
        strings(description.basePaths)
        count(description.paths.count)
        for path in description.paths {
            field(path.template)
            count(path.operations.count)
            for operation in path.operations { self.operation(operation) }
        }
        let lines = description.lines.sorted { $0.key < $1.key }
        count(lines.count)
        for (key, location) in lines {
            field(key)
            field(location.file)
            count(location.line)
            count(location.column)
        }
        let components = description.components.sorted { $0.key < $1.key }
        count(components.count)
        for (name, schema) in components {
            field(name)
            self.schema(schema)
        }
    }

    private mutating func operation(_ operation: APIOperation) {
        field(operation.method)
        optional(operation.operationID)
        optional(operation.summary)
        flag(operation.requestBody != nil)
        if let body = operation.requestBody {
            flag(body.required)
            contents(body.content)
            strings(body.location.components)
        }
        count(operation.responses.count)
        for response in operation.responses {
            field(response.status)
            contents(response.content)
            strings(response.location.components)
        }
        strings(operation.location.components)
    }

    private mutating func contents(_ contents: [APIContent]) {
        count(contents.count)
        for content in contents {
            field(content.mediaType)
            flag(content.schema != nil)
            if let schema = content.schema { self.schema(schema) }
            optional(content.schemaText?.text)
            strings(content.location.components)
        }
    }

    private mutating func composition(_ tag: Int, _ schemas: [APISchema]) {
        count(tag)
        count(schemas.count)
        for schema in schemas { self.schema(schema) }
    }

    private mutating func schema(_ schema: APISchema) {
        switch schema {
        case .all(let schemas): composition(0, schemas)
        case .any(let schemas): composition(1, schemas)
        case .one(let schemas): composition(2, schemas)
        case .open:
            count(3)
        case .reference(let name):
            count(4)
            optional(name)
        case .typed(let typed):
            count(5)
            strings(typed.types)
            flag(typed.object != nil)
            if let object = typed.object {
                strings(object.required)
                count(object.properties.count)
                for property in object.properties {
                    field(property.name)
                    self.schema(property.schema)
                }
                switch object.additional {
                case .unspecified: count(0)
                case .allowed(let allowed): count(allowed ? 2 : 1)
                case .schema(let schema):
                    count(3)
                    self.schema(schema)
                }
                flag(object.hasPatternProperties)
            }
            flag(typed.array != nil)
            if let array = typed.array {
                flag(array.items != nil)
                if let items = array.items { self.schema(items) }
            }
        }
    }
}

extension FieldReader {
    fileprivate mutating func flag() -> Bool? {
        switch count() {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    /// `.some(nil)` for an absent text, nil for a damaged field.
    fileprivate mutating func optional() -> String?? {
        guard let present = flag() else { return nil }
        guard present else { return .some(nil) }
        return field().map { .some($0) }
    }

    /// A count no larger than the bytes left could hold (each element takes at least 4 bytes).
    fileprivate mutating func boundedCount() -> Int? {
        guard let count = count(), count <= remaining / 4 else { return nil }
        return count
    }

    fileprivate mutating func strings() -> [String]? {
        guard let count = boundedCount() else { return nil }
        var list: [String] = []
        for _ in 0..<count {
            guard let text = field() else { return nil }
            list.append(text)
        }
        return list
    }

    fileprivate mutating func description() -> APIDescription? {
        guard let file = field(), let version = field(), let basePaths = strings(), let pathCount = boundedCount() else { return nil }
        var paths: [APIPath] = []
        for _ in 0..<pathCount {
            guard let template = field(), let operationCount = boundedCount() else { return nil }
            var operations: [APIOperation] = []
            for _ in 0..<operationCount {
                guard let operation = operation() else { return nil }
                operations.append(operation)
            }
            paths.append(APIPath(template: template, operations: operations))
        }
        guard let lineCount = boundedCount() else { return nil }
        var lines: [String: SourceLocation] = [:]
        for _ in 0..<lineCount {
            guard let key = field(), let file = field(), let line = count(), let column = count() else { return nil }
            lines[key] = SourceLocation(file: file, line: line, column: column)
        }
        guard let componentCount = boundedCount() else { return nil }
        var components: [String: APISchema] = [:]
        for _ in 0..<componentCount {
            guard let name = field(), let schema = schema(depth: 0) else { return nil }
            components[name] = schema
        }
        return APIDescription(file: file, version: version, basePaths: basePaths, paths: paths, lines: lines, components: components)
    }

    private mutating func operation() -> APIOperation? {
        guard let method = field(), let operationID = optional(), let summary = optional(), let hasBody = flag() else { return nil }
        var body: APIRequestBody?
        if hasBody {
            guard let required = flag(), let content = contents(), let location = strings() else { return nil }
            body = APIRequestBody(required: required, content: content, location: APILocation(location))
        }
        guard let responseCount = boundedCount() else { return nil }
        var responses: [APIResponse] = []
        for _ in 0..<responseCount {
            guard let status = field(), let content = contents(), let location = strings() else { return nil }
            responses.append(APIResponse(status: status, content: content, location: APILocation(location)))
        }
        guard let location = strings() else { return nil }
        return APIOperation(method: method, operationID: operationID, summary: summary, requestBody: body, responses: responses,
                            location: APILocation(location))
    }

    private mutating func contents() -> [APIContent]? {
        guard let count = boundedCount() else { return nil }
        var contents: [APIContent] = []
        for _ in 0..<count {
            guard let mediaType = field(), let hasSchema = flag() else { return nil }
            var schema: APISchema?
            if hasSchema {
                guard let read = self.schema(depth: 0) else { return nil }
                schema = read
            }
            guard let text = optional(), let location = strings() else { return nil }
            contents.append(APIContent(mediaType: mediaType, schema: schema, schemaText: text.map(APISchemaText.init(made:)),
                                       location: APILocation(location)))
        }
        return contents
    }

    private mutating func schemas(depth: Int) -> [APISchema]? {
        guard let count = boundedCount() else { return nil }
        var schemas: [APISchema] = []
        for _ in 0..<count {
            guard let schema = schema(depth: depth + 1) else { return nil }
            schemas.append(schema)
        }
        return schemas
    }

    private mutating func schema(depth: Int) -> APISchema? {
        guard depth < APIDescriptionArchive.maximumDepth, let tag = count() else { return nil }
        switch tag {
        case 0: return schemas(depth: depth).map(APISchema.all)
        case 1: return schemas(depth: depth).map(APISchema.any)
        case 2: return schemas(depth: depth).map(APISchema.one)
        case 3: return .open
        case 4: return optional().map(APISchema.reference)
        case 5: return typed(depth: depth).map(APISchema.typed)
        default: return nil
        }
    }

    private mutating func typed(depth: Int) -> APISchema.Typed? {
        guard let types = strings(), let hasObject = flag() else { return nil }
        var typed = APISchema.Typed(types: types)
        if hasObject {
            guard let required = strings(), let propertyCount = boundedCount() else { return nil }
            var properties: [(name: String, schema: APISchema)] = []
            for _ in 0..<propertyCount {
                guard let name = field(), let schema = schema(depth: depth + 1) else { return nil }
                properties.append((name, schema))
            }
            let additional: APISchema.Additional
            switch count() {
            case 0: additional = .unspecified
            case 1: additional = .allowed(false)
            case 2: additional = .allowed(true)
            case 3:
                guard let schema = schema(depth: depth + 1) else { return nil }
                additional = .schema(schema)
            default: return nil
            }
            guard let hasPatterns = flag() else { return nil }
            typed.object = APISchema.ObjectShape(required: required, properties: properties, additional: additional, hasPatternProperties: hasPatterns)
        }
        guard let hasArray = flag() else { return nil }
        if hasArray {
            guard let hasItems = flag() else { return nil }
            var items: APISchema?
            if hasItems {
                guard let schema = schema(depth: depth + 1) else { return nil }
                items = schema
            }
            typed.array = APISchema.ArrayShape(items: items)
        }
        return typed
    }
}
