/// A JSON value, used for expected values in `expect` blocks and for the JSON export.
/// Kept here (not Foundation's `Any`) so the model stays `Sendable`, `Hashable` and `Codable`.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Compact JSON text with sorted keys: deterministic, used in messages and pages.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .string(let value): return JSONValue.quote(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { JSONValue.quote($0) + ":" + members[$0]!.description }
                .joined(separator: ",") + "}"
        }
    }

    /// The JSON type name of this value, as used by `{ type: … }` matchers.
    public var typeName: JSONType {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// JSON string literal for `text`, escaping what RFC 8259 requires (`"`, `\\`, controls).
    /// `scriptSafe` also escapes what ends or changes a `<script>` in HTML (`<`, `>`, `&`) and
    /// JavaScript's line terminators U+2028/U+2029, for JSON embedded in pages. The one JSON
    /// string writer of the package; text without anything to escape costs one scan.
    public static func quote(_ text: String, scriptSafe: Bool = false) -> String {
        let plain = text.utf8.allSatisfy {
            $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && (!scriptSafe || ($0 != 0x3C && $0 != 0x3E && $0 != 0x26 && $0 != 0xE2))
        }
        if plain { return "\"" + text + "\"" }
        var out: [UInt8] = [0x22]
        out.reserveCapacity(text.utf8.count + 16)
        let bytes = Array(text.utf8)
        var index = 0
        func escape(_ literal: StaticString) { literal.withUTF8Buffer { out.append(contentsOf: $0) } }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x22: escape("\\\"")
            case 0x5C: escape("\\\\")
            case 0x0A: escape("\\n")
            case 0x0D: escape("\\r")
            case 0x09: escape("\\t")
            case 0x3C where scriptSafe: escape("\\u003c")
            case 0x3E where scriptSafe: escape("\\u003e")
            case 0x26 where scriptSafe: escape("\\u0026")
            case 0xE2 where scriptSafe && index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                escape(bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                index += 2
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                escape("\\u00")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
            index += 1
        }
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }
}

/// JSON types a `{ type: … }` matcher can require.
public enum JSONType: String, Hashable, Sendable, Codable, CaseIterable {
    case null, boolean, number, string, array, object
}
