import FlowModel
import Foundation

/// One way a request body differs from its schema.
public enum BodyProblem: Hashable, Sendable {
    /// An object lacks a property the schema lists under `required`.
    case missingRequired(at: JSONPath, name: String)
    /// A value is not of any type the schema allows.
    case wrongType(at: JSONPath, expected: [String], found: String)
    /// A property the schema closes out (`additionalProperties: false`).
    case notAllowed(at: JSONPath, name: String)
}

/// The checks lint makes of a request body and of a response's JSON paths, on the
/// description's schemas, references looked up in its components as they are met (a recursive
/// schema is fine: every walk is bounded to 64 levels). Deliberately the structural part of JSON
/// Schema (required, type, closed objects, items, allOf/anyOf/oneOf): what a spec's example
/// body can get wrong.
public enum SchemaChecks {
    /// A placeholder outside a JSON string in a body stands for a value of unknown type.
    public static let unknownValue = "\u{E000}flowspec-placeholder"

    /// Problems of `value` against `schema`, depth-first, in document order.
    public static func problems(_ value: JSONNode, against schema: APISchema, in components: [String: APISchema]) -> [BodyProblem] {
        var found: [BodyProblem] = []
        Walk(components: components).check(value, schema, at: JSONPath(components: []), depth: 0, into: &found)
        return found
    }

    /// The first component of `path` the schema does not have, as the path up to and
    /// including it; nil when the whole path can exist. A schema that leaves a level open
    /// (no type, `additionalProperties` not false, a `patternProperties`) lets the rest exist.
    public static func missingPrefix(of path: JSONPath, in schema: APISchema, components: [String: APISchema]) -> JSONPath? {
        Walk(components: components).missing(path.components[...], in: schema, walked: [], depth: 0)
    }
}

private struct Walk {
    let components: [String: APISchema]

    /// The schema a `$ref` names (nil: dangling, which validation already refused).
    func resolved(_ schema: APISchema) -> APISchema? {
        var current = schema
        var hops = 0
        while case .reference(let name) = current {
            guard hops < 64, let name, let target = components[name] else { return nil }
            current = target
            hops += 1
        }
        return current
    }

    func check(_ value: JSONNode, _ schema: APISchema, at path: JSONPath, depth: Int, into found: inout [BodyProblem]) {
        guard depth < 64, value != .string(SchemaChecks.unknownValue), let schema = resolved(schema) else { return }
        let typed: APISchema.Typed
        switch schema {
        case .all(let schemas):
            for schema in schemas { check(value, schema, at: path, depth: depth + 1, into: &found) }
            return
        case .any(let schemas), .one(let schemas):
            // Satisfied when one branch has no problem; otherwise the first branch's problems.
            let results = schemas.map { branch -> [BodyProblem] in
                var branchFound: [BodyProblem] = []
                check(value, branch, at: path, depth: depth + 1, into: &branchFound)
                return branchFound
            }
            if !results.contains(where: \.isEmpty) { found += results.first ?? [] }
            return
        case .open, .reference:
            return
        case .typed(let schema):
            typed = schema
        }
        guard typed.types.contains(where: { fits(value, $0) }) else {
            found.append(.wrongType(at: path, expected: typed.types, found: typeName(value)))
            return
        }
        switch value {
        case .object(let members):
            guard let object = typed.object else { return }
            for name in object.required where members[name] == nil {
                found.append(.missingRequired(at: path, name: name))
            }
            for name in members.names.sorted() {
                let child = JSONPath(components: path.components + [.key(name)])
                if let property = object.property(name) {
                    check(members[name]!, property, at: child, depth: depth + 1, into: &found)
                } else if case .schema(let additional) = object.additional {
                    check(members[name]!, additional, at: child, depth: depth + 1, into: &found)
                } else if case .allowed(false) = object.additional {
                    found.append(.notAllowed(at: path, name: name))
                }
            }
        case .array(let items):
            guard let itemSchema = typed.array?.items else { return }
            for (index, item) in items.enumerated() {
                check(item, itemSchema, at: JSONPath(components: path.components + [.index(index)]), depth: depth + 1, into: &found)
            }
        default:
            break
        }
    }

    private func fits(_ value: JSONNode, _ type: String) -> Bool {
        switch (value, type) {
        case (.null, "null"), (.bool, "boolean"), (.int, "number"), (.double, "number"), (.string, "string"), (.array, "array"), (.object, "object"),
             (.int, "integer"):
            return true
        case (.double(let number), "integer"):
            return number.rounded() == number
        default:
            return false
        }
    }

    private func typeName(_ value: JSONNode) -> String {
        if let number = value.doubleValue, number.rounded() == number { return "integer" }
        return value.typeName.rawValue
    }

    func missing(_ rest: ArraySlice<JSONPath.Component>, in schema: APISchema, walked: [JSONPath.Component], depth: Int) -> JSONPath? {
        guard let component = rest.first, depth < 64, let schema = resolved(schema) else { return nil }
        let here = JSONPath(components: walked + [component])
        switch schema {
        case .all(let schemas), .any(let schemas), .one(let schemas):
            // The path can exist when it can exist in one of the subschemas.
            let results = schemas.map { missing(rest, in: $0, walked: walked, depth: depth + 1) }
            if results.isEmpty || results.contains(where: { $0 == nil }) { return nil }
            return results.compactMap { $0 }.max { $0.components.count < $1.components.count }
        case .open, .reference:
            return nil
        case .typed(let typed):
            if let object = typed.object {
                guard case .key(let name) = component else { return here }
                if let property = object.property(name) {
                    return missing(rest.dropFirst(), in: property, walked: walked + [component], depth: depth + 1)
                }
                if case .schema(let additional) = object.additional {
                    return missing(rest.dropFirst(), in: additional, walked: walked + [component], depth: depth + 1)
                }
                // Named properties describe the object: a name outside them is not in the schema
                // (a typo, or a field the description lacks), unless patterns or a free-form
                // object (no properties, not closed) allow any name.
                if object.hasPatternProperties { return nil }
                if object.properties.isEmpty, object.additional != .allowed(false) { return nil }
                return here
            }
            if let array = typed.array {
                guard case .index = component else { return here }
                guard let items = array.items else { return nil }
                return missing(rest.dropFirst(), in: items, walked: walked + [component], depth: depth + 1)
            }
            return here
        }
    }
}

extension SchemaChecks {
    /// A request body's JSON with its placeholders: inside a string they stay (the value is a
    /// string whatever it is), outside one they become `unknownValue` (a value of any type).
    /// Nil when the body is not JSON even so.
    public static func jsonBody(_ body: String) -> JSONNode? {
        // No `{{` bytes, no placeholder: the text is parsed as it is.
        guard body.utf8Contains("{{") else { return JSONNode.parse(body) }
        return JSONNode.parse(String(decoding: replacingPlaceholders(body), as: UTF8.self))
    }

    /// `body` with each placeholder outside a JSON string replaced by `unknownValue` quoted, on
    /// UTF-8 bytes: JSON's quotes and backslashes are code points, so a `"` before a combining
    /// mark still ends a string (as a JSON parser reads it).
    package static func replacingPlaceholders(_ body: String) -> [UInt8] {
        var body = body
        let unknown = Array(JSONNode.quote(unknownValue).utf8)
        return body.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 64)
            var inString = false, escaped = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if !inString, byte == 0x7B, index + 1 < bytes.count, bytes[index + 1] == 0x7B, let close = closingBraces(bytes, from: index + 2) {
                    out.append(contentsOf: unknown)
                    index = close + 2
                    continue
                }
                if inString {
                    if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                } else if byte == 0x22 {
                    inString = true
                }
                out.append(byte)
                index += 1
            }
            return out
        }
    }

    /// Where the next `}}` from `start` begins.
    private static func closingBraces(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0x7D, bytes[index + 1] == 0x7D { return index }
            index += 1
        }
        return nil
    }
}
