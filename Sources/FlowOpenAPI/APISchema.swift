import FlowModel
import Foundation
import OpenAPIKit
import Synchronization

/// flowspec's view of a JSON Schema: the structural part lint checks (types, required and
/// named properties, closed objects, items, allOf/anyOf/oneOf), with `$ref`s kept by component
/// name and looked up as they are walked (a schema may refer to itself). Built once from
/// OpenAPIKit's schema; plain values, so a description can be stored between builds and read
/// back without OpenAPIKit (whose types cost the process tens of milliseconds on first use).
public indirect enum APISchema: Sendable, Equatable {
    case all([APISchema])
    case any([APISchema])
    case one([APISchema])
    /// `not`, or a fragment without a type: accepts any value.
    case open
    /// A `$ref` to `components.schemas`: the component's name, nil when the reference does not
    /// name a component of this document (external, or dangling).
    case reference(String?)
    case typed(Typed)

    /// A schema with a type.
    public struct Typed: Sendable, Equatable {
        /// JSON type names it accepts (`nullable` / `type: [x, "null"]` add `null`).
        public var types: [String]
        public var object: ObjectShape?
        public var array: ArrayShape?
    }

    public struct ObjectShape: Sendable, Equatable {
        public var required: [String]
        /// Named properties in document order.
        public var properties: [(name: String, schema: APISchema)]
        public var additional: Additional
        public var hasPatternProperties: Bool

        public func property(_ name: String) -> APISchema? { properties.first { $0.name == name }?.schema }

        public static func == (a: ObjectShape, b: ObjectShape) -> Bool {
            a.required == b.required && a.additional == b.additional && a.hasPatternProperties == b.hasPatternProperties
                && a.properties.elementsEqual(b.properties) { $0.name == $1.name && $0.schema == $1.schema }
        }
    }

    /// `additionalProperties`.
    public enum Additional: Sendable, Equatable {
        case unspecified
        case allowed(Bool)
        case schema(APISchema)
    }

    public struct ArrayShape: Sendable, Equatable {
        public var items: APISchema?
    }
}

extension APISchema {
    /// The same schema in flowspec's terms; `components` tells which references resolve.
    init(_ schema: JSONSchema, components: OpenAPI.Components) {
        func convert(_ schema: JSONSchema) -> APISchema { APISchema(schema, components: components) }
        switch schema.value {
        case .all(of: let schemas, _): self = .all(schemas.map(convert))
        case .any(of: let schemas, _): self = .any(schemas.map(convert))
        case .one(of: let schemas, _): self = .one(schemas.map(convert))
        case .not, .fragment: self = .open
        case .reference(let reference, _):
            // OpenAPIKit looks a reference up by its last name in `components.schemas`.
            self = .reference(components[schema] == nil ? nil : reference.name)
        case .object(_, let context):
            self = .typed(Typed(types: Self.types("object", schema), object: ObjectShape(
                required: context.requiredProperties,
                properties: context.properties.map { (name: $0.key, schema: convert($0.value)) },
                additional: context.additionalProperties.map { either -> Additional in
                    switch either {
                    case .a(let allowed): return .allowed(allowed)
                    case .b(let schema): return .schema(convert(schema))
                    }
                } ?? .unspecified,
                hasPatternProperties: !context.patternProperties.isEmpty)))
        case .array(_, let context):
            self = .typed(Typed(types: Self.types("array", schema), array: ArrayShape(items: context.items.map(convert))))
        case .null: self = .typed(Typed(types: Self.types("null", schema)))
        case .boolean: self = .typed(Typed(types: Self.types("boolean", schema)))
        case .number: self = .typed(Typed(types: Self.types("number", schema)))
        case .integer: self = .typed(Typed(types: Self.types("integer", schema)))
        case .string: self = .typed(Typed(types: Self.types("string", schema)))
        }
    }

    private static func types(_ type: String, _ schema: JSONSchema) -> [String] {
        schema.nullable && type != "null" ? [type, "null"] : [type]
    }

    /// The components' schemas by name.
    static func components(_ components: OpenAPI.Components) -> [String: APISchema] {
        var schemas: [String: APISchema] = [:]
        for (key, schema) in components.schemas { schemas[key.rawValue] = APISchema(schema, components: components) }
        return schemas
    }
}

/// A schema as a page shows it: pretty-printed JSON with sorted keys, a top-level `$ref` looked
/// up first. Made on first use (JSONEncoder over OpenAPIKit's types is slow, and lint never
/// asks) and kept; or given, when the description was read back from storage.
public final class APISchemaText: Sendable {
    private enum State {
        case pending(JSONSchema, OpenAPI.Components)
        case made(String)
    }

    private let state: Mutex<State>

    init(_ schema: JSONSchema, components: OpenAPI.Components) { state = Mutex(.pending(schema, components)) }
    init(made text: String) { state = Mutex(.made(text)) }

    public var text: String {
        state.withLock { state in
            switch state {
            case .made(let text):
                return text
            case .pending(let schema, let components):
                let text = Self.make(schema, components)
                state = .made(text)
                return text
            }
        }
    }

    private static func make(_ schema: JSONSchema, _ components: OpenAPI.Components) -> String {
        var current = schema
        var hops = 0
        while case .reference(let reference, _) = current.value, hops < 64, let target = components[reference] {
            current = target
            hops += 1
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(current) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
