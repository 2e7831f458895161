import Foundation

/// The package's one JSON value: expected values of `expect` blocks, request and response
/// bodies, exports, and tokens. It keeps what JOSE work needs and `JSONSerialization` loses —
/// member order, duplicate members (when you build them on purpose), the integer/double
/// distinction (`exp` stays an `Int64`) — while equality is JSON's: numbers compare by value
/// (`1 == 1.0`) and objects by their members, whatever their order.
///
/// Build payloads with literals — `["iss": "https://appleid.apple.com", "exp": 1_300_819_380]`
/// — and serialize with `jsonBytes()` for exact, deterministic bytes; `description` is compact
/// text with sorted keys, for messages and pages.
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
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A JSON number: an integer when `value` is a whole number an `Int64` holds, else a double.
    public static func number(_ value: Double) -> JSONNode {
        if value.rounded() == value, abs(value) < 9.0e18 { return .int(Int64(value)) }
        return .double(value)
    }

    /// An object from unordered members: sorted by name, so the result is deterministic.
    public static func object(_ members: [String: JSONNode]) -> JSONNode {
        .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// The JSON type name of this value, as used by `{ type: … }` matchers.
    public var typeName: JSONType {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .int, .double: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.int, .double), (.double, .int), (.double, .double): lhs.doubleValue == rhs.doubleValue
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int, .double: hasher.combine(doubleValue)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let object): hasher.combine(object)
        }
    }
}

/// JSON types a `{ type: … }` matcher can require.
public enum JSONType: String, Hashable, Sendable, Codable, CaseIterable {
    case null, boolean, number, string, array, object
}

extension JSONNode: CustomStringConvertible {
    /// Compact JSON text with sorted keys: deterministic, used in messages and pages.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .string(let value): return JSONNode.quote(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.members.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
                .map { JSONNode.quote($0.element.name) + ":" + $0.element.value.description }.joined(separator: ",") + "}"
        }
    }
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
    /// The distinct member names, in member order.
    public var keys: [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
    /// The same members with `transform` applied to each value.
    public func mapValues(_ transform: (JSONNode) throws -> JSONNode) rethrows -> JSONObject {
        JSONObject(try members.map { Member($0.name, try transform($0.value)) })
    }
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

    /// JSON's equality: the same members, whatever their order (members of one name compare in
    /// their order, for objects built with duplicates).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && lhs.byName() == rhs.byName()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        var combined = 0
        for member in members {
            var one = Hasher()
            for scalar in member.name.unicodeScalars { one.combine(scalar.value) }
            one.combine(member.value)
            combined ^= one.finalize()
        }
        hasher.combine(combined)
    }

    /// Members grouped by name (compared by Unicode scalars), each group in member order.
    private func byName() -> [[Unicode.Scalar]: [JSONNode]] {
        var groups: [[Unicode.Scalar]: [JSONNode]] = [:]
        for member in members { groups[Array(member.name.unicodeScalars), default: []].append(member.value) }
        return groups
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
        appendQuoted(value, scriptSafe: false, to: &out)
    }
}

extension JSONObject {
    public func jsonBytes() -> [UInt8] { JSONNode.object(self).jsonBytes() }

    public func jsonString() -> String { JSONNode.object(self).jsonString() }

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

extension JSONNode {
    /// JSON string literal for `text`, escaping what RFC 8259 requires (`"`, `\\`, controls).
    /// `scriptSafe` also escapes what ends or changes a `<script>` in HTML (`<`, `>`, `&`) and
    /// JavaScript's line terminators U+2028/U+2029, for JSON embedded in pages. The one JSON
    /// string writer of the package; text without anything to escape costs one scan.
    public static func quote(_ text: String, scriptSafe: Bool = false) -> String {
        var out: [UInt8] = []
        appendQuoted(text, scriptSafe: scriptSafe, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` as a JSON string literal appended to `out`: the writer behind `quote`,
    /// `jsonBytes()` and `description`. Backspace and form feed take their short escapes.
    package static func appendQuoted(_ text: String, scriptSafe: Bool, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted(utf8: $0, scriptSafe: scriptSafe, to: &out) }
    }

    /// `appendQuoted` of text given as its UTF-8 bytes (valid UTF-8).
    package static func appendQuoted(utf8 bytes: UnsafeBufferPointer<UInt8>, scriptSafe: Bool, to out: inout [UInt8]) {
        out.append(0x22)
        do {
            // One pass: runs of bytes that need no escape are copied whole, and blocks of
            // sixteen bytes none of which may need one are passed at once (`ByteBlocks.skip`).
            var runStart = 0
            var index = 0
            var blockEnd = 0
            func escape(_ literal: StaticString, skipping count: Int = 1) {
                if index > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                literal.withUTF8Buffer { out.append(contentsOf: $0) }
                index += count
                runStart = index
            }
            while index < bytes.count {
                if index >= blockEnd {
                    index = ByteBlocks.skip(bytes, from: index, padding: 0x20) { block in
                        ByteBlocks.equal(block, 0x22) .| ByteBlocks.equal(block, 0x5C) .| ByteBlocks.below(block, 0x20)
                            .| ByteBlocks.equal(block, 0x3C) .| ByteBlocks.equal(block, 0x3E) .| ByteBlocks.equal(block, 0x26)
                            .| ByteBlocks.equal(block, 0xE2)
                    }
                    blockEnd = index + 16
                    if index >= bytes.count { break }
                }
                let byte = bytes[index]
                switch byte {
                case 0x22: escape("\\\"")
                case 0x5C: escape("\\\\")
                case 0x0A: escape("\\n")
                case 0x0D: escape("\\r")
                case 0x09: escape("\\t")
                case 0x08: escape("\\b")
                case 0x0C: escape("\\f")
                case 0x3C where scriptSafe: escape("\\u003c")
                case 0x3E where scriptSafe: escape("\\u003e")
                case 0x26 where scriptSafe: escape("\\u0026")
                case 0xE2 where scriptSafe && index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    escape(bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", skipping: 3)
                case 0..<0x20:
                    escape("\\u00", skipping: 0)
                    let hex: StaticString = "0123456789abcdef"
                    hex.withUTF8Buffer { digits in
                        out.append(digits[Int(byte >> 4)])
                        out.append(digits[Int(byte & 0xF)])
                    }
                    index += 1
                    runStart = index
                default:
                    index += 1
                }
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        out.append(0x22)
    }
}
