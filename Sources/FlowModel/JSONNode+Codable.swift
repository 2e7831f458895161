import Foundation

/// JSONNode as a Codable value (exports, reports, the model's JSON form), and the one reader of
/// JSON text into it.
extension JSONNode: Codable {
    public init(from decoder: Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberName.self) {
            var object = JSONObject()
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                object.append(key.stringValue, try container.decode(JSONNode.self, forKey: key))
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [JSONNode] = []
            while !container.isAtEnd { values.append(try container.decode(JSONNode.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .object(let object):
            var container = encoder.container(keyedBy: MemberName.self)
            for member in object.members { try container.encode(member.value, forKey: MemberName(member.name)) }
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(Double(value))
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array, .object: break
            }
        }
    }

    /// An object member's name as a coding key.
    struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension JSONNode {
    /// JSON text as a value; nil when it is not JSON (an empty body included). The one reader of
    /// bodies, examples and expected values — lenient where bodies are (a repeated member keeps
    /// its last value), unlike `StrictJSON`, which tokens go through.
    public static func parse(_ bytes: [UInt8]) -> JSONNode? {
        guard !bytes.isEmpty else { return nil }
        // Most texts are plain RFC 8259 JSON, which `StrictJSON` reads and shapes in a quarter
        // of the decoder's instructions (a fiftieth of a site build's CPU went to decoding
        // bodies); its value, shaped as the decoder's, is the decoder's (`JSONParseTests`). Anything it refuses, or where
        // the two could differ, goes to the decoder, as every text did before.
        if let strict = try? StrictJSON.parse(bytes), let shaped = decoderShaped(strict) { return shaped }
        return decoded(bytes)
    }

    /// What Foundation's `JSONDecoder` makes of `bytes` through `init(from:)`: the reference.
    package static func decoded(_ bytes: [UInt8]) -> JSONNode? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONDecoder().decode(JSONNode.self, from: Data(bytes))
    }

    /// `node` (a strict parse) as `init(from:)` builds the same text: numbers through `Double`
    /// (`number`), members sorted by name. Nil where the two may differ: an object holding two
    /// names that are equal as Strings (canonically equivalent) but not scalar for scalar (the
    /// strict parser kept both, the decoder keeps one of them), and a double that is zero.
    static func decoderShaped(_ node: JSONNode) -> JSONNode? {
        switch node {
        case .null, .bool, .string: return node
        case .int(let value): return .number(Double(value))
        // A double that is zero: the decoder refuses some texts that read as zero (`1e-400`,
        // which underflows, and `0e2`), so it reads them all.
        case .double(let value): return value == 0 ? nil : .number(value)
        case .array(let values):
            var shaped: [JSONNode] = []
            shaped.reserveCapacity(values.count)
            for value in values {
                guard let value = decoderShaped(value) else { return nil }
                shaped.append(value)
            }
            return .array(shaped)
        case .object(let object):
            var members: [JSONObject.Member] = []
            members.reserveCapacity(object.count)
            for member in object.members {
                guard let value = decoderShaped(member.value) else { return nil }
                members.append(JSONObject.Member(member.name, value))
            }
            members.sort { $0.name < $1.name }
            for index in members.indices.dropFirst() where members[index - 1].name == members[index].name { return nil }
            return .object(JSONObject(members))
        }
    }

    public static func parse(_ text: String) -> JSONNode? { parse(Array(text.utf8)) }
}
