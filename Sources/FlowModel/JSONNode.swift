
/// A JSON value that keeps what JOSE work needs and `JSONSerialization` loses:
/// member order, duplicate members (when you build them on purpose), and the
/// integer/double distinction (`exp` stays an `Int64`).
///
/// Build payloads with literals — `["iss": "https://appleid.apple.com", "exp": 1_300_819_380]`
/// — and serialize with `jsonBytes()` for exact, deterministic bytes.
public enum JSONNode: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONNode])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var int64Value: Int64? { if case .int(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var doubleValue: Double? {
        switch self {
        case .double(let v): v
        case .int(let v): Double(v)
        default: nil
        }
    }
    public var arrayValue: [JSONNode]? { if case .array(let v) = self { v } else { nil } }
    public var objectValue: JSONObject? { if case .object(let v) = self { v } else { nil } }
    public var isNull: Bool { self == .null }
}

/// An ordered list of members. Parsed objects never hold duplicates (the parser
/// rejects them); objects you build may, to mint tokens with duplicate claims.
/// Lookups compare names by Unicode scalars (not canonical equivalence), as JOSE does.
public struct JSONObject: Hashable, Sendable, Sequence {
    public struct Member: Hashable, Sendable {
        public var name: String
        public var value: JSONNode
        public init(_ name: String, _ value: JSONNode) {
            self.name = name
            self.value = value
        }
    }

    public var members: [Member]

    public init() { members = [] }
    public init(_ members: [Member]) { self.members = members }
    public init(_ pairs: [(String, JSONNode)]) { members = pairs.map { Member($0.0, $0.1) } }

    public var names: [String] { members.map(\.name) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// First member with this exact name. Setting replaces the first such member
    /// (or appends); setting nil removes every member with that name.
    public subscript(name: String) -> JSONNode? {
        get { members.first(where: { Self.same($0.name, name) })?.value }
        set {
            if let newValue {
                if let index = members.firstIndex(where: { Self.same($0.name, name) }) {
                    members[index].value = newValue
                } else {
                    members.append(Member(name, newValue))
                }
            } else {
                members.removeAll(where: { Self.same($0.name, name) })
            }
        }
    }

    public func contains(_ name: String) -> Bool { members.contains(where: { Self.same($0.name, name) }) }

    /// Appends even when the name already exists (for duplicate-claim cases).
    public mutating func append(_ name: String, _ value: JSONNode) { members.append(Member(name, value)) }

    public func string(_ name: String) -> String? { self[name]?.stringValue }
    public func int64(_ name: String) -> Int64? { self[name]?.int64Value }

    package static func same(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            for scalar in member.name.unicodeScalars { hasher.combine(scalar.value) }
            hasher.combine(member.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Keeps literal order and duplicate keys.
    public init(dictionaryLiteral elements: (String, JSONNode)...) { self.init(elements) }
}

extension JSONNode: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONNode...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONNode)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Serialization

extension JSONNode {
    /// Compact UTF-8 JSON: no insignificant whitespace, members in stored order,
    /// `/` and non-ASCII unescaped, control characters escaped. Non-finite doubles
    /// (not representable in JSON) are written as `null`.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    public func jsonString() -> String { String(decoding: jsonBytes(), as: UTF8.self) }

    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .int(let value): out += Array(String(value).utf8)
        case .double(let value):
            if value.isFinite {
                // Swift's description is the shortest round-tripping form: "1.5", "1e-07", "1e+21".
                out += Array(value.description.utf8)
            } else {
                out += Array("null".utf8)
            }
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object): object.write(to: &out)
        }
    }

    package static func writeString(_ value: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONObject {
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    public func jsonString() -> String { String(decoding: jsonBytes(), as: UTF8.self) }

    package func write(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONNode.writeString(member.name, to: &out)
            out.append(UInt8(ascii: ":"))
            member.value.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
