/// An optional value kept behind one pointer. A run keeps every item's result, with a record per
/// step, until its report is written; an `Evidence?` stored inline costs its full size (a few
/// hundred bytes) in every one of them even when it is nil, which it is for almost every passed
/// step. Encoded exactly as the optional itself: absent when nil.
@propertyWrapper
public struct Boxed<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    private final class Box: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box?

    public init(wrappedValue: Value?) { box = wrappedValue.map(Box.init) }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }

    public static func == (lhs: Boxed, rhs: Boxed) -> Bool { lhs.wrappedValue == rhs.wrappedValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Value.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value = wrappedValue { try container.encode(value) } else { try container.encodeNil() }
    }
}

// A boxed member is written and read like an optional member: left out when nil.
extension KeyedEncodingContainer {
    mutating func encode<Value>(_ boxed: Boxed<Value>, forKey key: Key) throws {
        try encodeIfPresent(boxed.wrappedValue, forKey: key)
    }
}

extension KeyedDecodingContainer {
    func decode<Value>(_ type: Boxed<Value>.Type, forKey key: Key) throws -> Boxed<Value> {
        Boxed(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
