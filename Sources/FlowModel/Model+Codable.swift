/// Hand-written JSON shapes for the enums with payloads, so the exported model reads
/// naturally (`{"step": 6}`, `{"end": "cancelled"}`, `{"type": "string"}`) and matches
/// docs/schemas/flow-model.schema.json rather than Swift's synthesized `_0` keys.

extension Target {
    private enum CodingKeys: String, CodingKey { case step, end }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let number = try container.decodeIfPresent(Int.self, forKey: .step) {
            self = .step(number)
        } else {
            self = .end(try container.decode(Outcome.self, forKey: .end))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .step(let number): try container.encode(number, forKey: .step)
        case .end(let outcome): try container.encode(outcome, forKey: .end)
        }
    }
}

extension ValueMatcher {
    private enum CodingKeys: String, CodingKey { case equals, type, exists, matches }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let type = try container.decodeIfPresent(JSONType.self, forKey: .type) {
            self = .type(type)
        } else if let exists = try container.decodeIfPresent(Bool.self, forKey: .exists) {
            self = .exists(exists)
        } else if let pattern = try container.decodeIfPresent(String.self, forKey: .matches) {
            self = .matches(pattern)
        } else {
            self = .equals(try container.decode(JSONNode.self, forKey: .equals))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .equals(let value): try container.encode(value, forKey: .equals)
        case .type(let type): try container.encode(type, forKey: .type)
        case .exists(let flag): try container.encode(flag, forKey: .exists)
        case .matches(let pattern): try container.encode(pattern, forKey: .matches)
        }
    }
}

extension Capture.Source {
    private enum CodingKeys: String, CodingKey { case json, header }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let header = try container.decodeIfPresent(String.self, forKey: .header) {
            self = .header(header)
        } else {
            self = .json(try container.decode(JSONPath.self, forKey: .json))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .json(let path): try container.encode(path, forKey: .json)
        case .header(let name): try container.encode(name, forKey: .header)
        }
    }
}
