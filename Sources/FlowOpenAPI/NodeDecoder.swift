import Foundation
import Synchronization
import Yams

/// Decodes a composed YAML tree as Yams' `YAMLDecoder` does, without what makes it slow on an
/// OpenAPI description: Yams finds a key by building a `Node` and comparing it with every key of
/// the mapping, each comparison resolving both tags, and copies ("flattens") the mapping for
/// every container. Here a key is found by its text first, and only a key with the same text
/// is compared as Yams compares it, so the answer is the same pair. Scalars are made by Yams' own
/// `ScalarConstructible` conformances, and errors are the `DecodingError`s Yams throws.
///
/// What it does not do — merge keys (`<<` tagged `!!merge`, or `=`) — is found before decoding,
/// and such a tree goes to Yams whole. Any error also sends the tree to Yams, so that an error,
/// and the message lint prints from it, is always Yams' own.
enum NodeDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from node: Node) throws -> T {
        guard !needsYams(node), let value = try? FastDecoder(node: node, codingPath: []).decodeElement(type) else {
            return try YAMLDecoder().decode(type, from: node)
        }
        return value
    }

    /// This decoder alone: throws `Unsupported` where `decode` hands the tree to Yams.
    static func decodeWithoutYams<T: Decodable>(_ type: T.Type, from node: Node) throws -> T {
        guard !needsYams(node) else { throw Unsupported() }
        return try FastDecoder(node: node, codingPath: []).decodeElement(type)
    }

    /// Whether a mapping of the tree has a key Yams merges (tagged `!!merge` or `!!value`),
    /// found before decoding: a `Decodable` that catches errors (OpenAPIKit tries one type, then
    /// another) would otherwise go on past a stop Yams never makes.
    static func needsYams(_ root: Node) -> Bool {
        var found = false
        root.visitAll { node in
            if case .mapping(let mapping) = node, mapping.contains(where: { isMergeKey($0.key) }) { found = true }
            return !found
        }
        return found
    }

    static func isMergeKey(_ key: Node) -> Bool {
        key.tag.rawValue == Tag.Name.merge.rawValue || key.tag.rawValue == Tag.Name.value.rawValue
    }

    /// The tree holds something Yams gives a meaning this decoder does not reproduce.
    struct Unsupported: Error {}
}

extension Node {
    /// Visits every node of the tree, keys included, depth first without recursion, until
    /// `visit` returns false.
    func visitAll(_ visit: (Node) -> Bool) {
        var stack = [self]
        while let node = stack.popLast() {
            guard visit(node) else { return }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping {
                    stack.append(key)
                    stack.append(value)
                }
            case .sequence(let sequence):
                stack.append(contentsOf: sequence)
            case .scalar, .alias:
                break
            }
        }
    }
}

/// `_YAMLCodingKey`'s twin (Yams keeps its own private): the same texts in coding paths.
private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let `super` = IndexKey(stringValue: "super")!
}

private struct FastDecoder: Decoder, SingleValueDecodingContainer {
    let node: Node
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let mapping) = node else {
            throw typeMismatch(codingPath, expectation: Node.Mapping.self, reality: node)
        }
        return KeyedDecodingContainer(FastKeyedContainer<Key>(decoder: self, mapping: mapping))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .sequence(let sequence) = node else {
            throw typeMismatch(codingPath, expectation: Node.Sequence.self, reality: node)
        }
        return FastUnkeyedContainer(decoder: self, sequence: sequence)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer { self }

    func child(_ node: Node, key: CodingKey) -> FastDecoder {
        FastDecoder(node: node, codingPath: codingPath + [key])
    }

    // MARK: Single value

    func decodeNil() -> Bool { node.null == NSNull() }

    func decode<T: Decodable & ScalarConstructible>(_ type: T.Type) throws -> T { try decodeValue(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    /// A value in a mapping or sequence (or the root), decoded as Yams decodes it. On a mapping
    /// or a sequence, the answer of `decodeValue`'s `as? ScalarConstructible` is not needed: a
    /// scalar type cannot be made from one, and `T.init(from:)` finds that out the same way,
    /// through this decoder's single value container, which throws Yams' own mismatch. That
    /// question, asked first of each of OpenAPIKit's types, made the runtime scan its 12 000
    /// conformance records once per type (linting one flow that names a description: 256.9 →
    /// 246.0 M instructions without it, callgrind). Not so for Yams' scalar types whose
    /// `Decodable` is not a single value (Data, Decimal, URL: an array, a keyed container):
    /// they keep `decodeValue`'s path, so a sequence never makes a `Data` here when Yams
    /// refuses it. `NodeDecoderTests` holds every Yams scalar type to Yams' outcome on a
    /// mapping and on a sequence.
    func decodeElement<T: Decodable>(_ type: T.Type) throws -> T {
        switch node {
        case .mapping, .sequence:
            if type == Data.self || type == Decimal.self || type == URL.self { return try decodeValue(type) }
            return try type.init(from: self)
        case .scalar, .alias:
            return try decodeValue(type)
        }
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        guard let constructible = type as? ScalarConstructible.Type else { return try type.init(from: self) }
        let scalar: Node.Scalar
        switch node {
        case .scalar(let value): scalar = value
        case .mapping(let mapping): throw typeMismatch(codingPath, expectation: Node.Scalar.self, reality: mapping)
        case .sequence(let sequence): throw typeMismatch(codingPath, expectation: Node.Scalar.self, reality: sequence)
        case .alias(let alias): throw typeMismatch(codingPath, expectation: Node.Scalar.self, reality: alias)
        }
        guard let constructed = constructible.construct(from: scalar) else {
            throw typeMismatch(codingPath, expectation: constructible, reality: scalar)
        }
        guard let value = constructed as? T else { throw typeMismatch(codingPath, expectation: type, reality: constructed) }
        return value
    }
}

private struct FastKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FastDecoder
    let mapping: Node.Mapping
    /// The mapping's own tag made implicit: what Yams builds a probe key with.
    let probeTag: Tag
    /// What Yams adds to a mapping with an anchor or an explicit tag, when the mapping has no
    /// such key of its own: `yamlAnchor` and `yamlTag`, found last.
    let added: [(name: String, value: Node)]

    private static var anchorKey: String { "yamlAnchor" }
    private static var tagKey: String { "yamlTag" }

    init(decoder: FastDecoder, mapping: Node.Mapping) {
        // Yams merges `<<` and `=` keys (`flatten`): `needsYams` keeps such trees away from here.
        self.decoder = decoder
        self.mapping = mapping
        probeTag = mapping.tag.copy(with: .implicit)
        var added: [(String, Node)] = []
        if let anchor = mapping.anchor, Self.find(Self.anchorKey, in: mapping, probe: .scalar(.init(Self.anchorKey))) == nil {
            added.append((Self.anchorKey, .scalar(.init(anchor.rawValue))))
        }
        if mapping.tag.rawValue != Tag.Name.implicit.rawValue, Self.find(Self.tagKey, in: mapping, probe: .scalar(.init(Self.tagKey))) == nil {
            added.append((Self.tagKey, .scalar(.init(mapping.tag.rawValue))))
        }
        self.added = added
    }

    var codingPath: [CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        mapping.compactMap { pair in
            guard let text = pair.key.string else { return nil }
            if text == Self.anchorKey || text == Self.tagKey, pair.key == .scalar(.init(text)) { return nil }
            return Key(stringValue: text)
        }
    }

    /// The value of the last pair whose key equals `probe` (made when first needed): keys are
    /// compared by their text first, and only a key with the same text as Yams compares them.
    private static func find(_ name: String, in mapping: Node.Mapping, probe: @autoclosure () -> Node) -> Node? {
        var made: Node?
        for index in mapping.indices.reversed() {
            let pair = mapping[index]
            guard case .scalar(let scalar) = pair.key, scalar.string == name else { continue }
            let node = made ?? probe()
            made = node
            if pair.key == node { return pair.value }
        }
        return nil
    }

    /// The value Yams finds for `name`.
    private func value(_ name: String) -> Node? {
        if let added = added.last(where: { $0.name == name }) { return added.value }
        return Self.find(name, in: mapping, probe: Node(name, probeTag))
    }

    func contains(_ key: Key) -> Bool { value(key.stringValue) != nil }

    private func child(_ key: CodingKey) throws -> FastDecoder {
        guard let node = value(key.stringValue) else {
            let context = DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            throw DecodingError.keyNotFound(key, context)
        }
        return decoder.child(node, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }

    func decode<T: Decodable & ScalarConstructible>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeElement(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { try child(key).unkeyedContainer() }

    func superDecoder() throws -> Decoder { try child(IndexKey.super) }

    func superDecoder(forKey key: Key) throws -> Decoder { try child(key) }
}

private struct FastUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: FastDecoder
    let sequence: Node.Sequence
    var currentIndex = 0

    init(decoder: FastDecoder, sequence: Node.Sequence) {
        self.decoder = decoder
        self.sequence = sequence
    }

    var codingPath: [CodingKey] { decoder.codingPath }
    var count: Int? { sequence.count }
    var isAtEnd: Bool { currentIndex >= sequence.count }

    private mutating func next<T>(_ type: T.Type, _ body: (FastDecoder) throws -> T) throws -> T {
        let key = IndexKey(index: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        let value = try body(decoder.child(sequence[currentIndex], key: key))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            let key = IndexKey(index: currentIndex)
            throw DecodingError.valueNotFound(Any?.self, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        return try next(Bool.self) { $0.decodeNil() }
    }

    mutating func decode<T: Decodable & ScalarConstructible>(_ type: T.Type) throws -> T { try next(type) { try $0.decodeValue(type) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.decodeElement(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        try next(UnkeyedDecodingContainer.self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> Decoder { try next(FastDecoder.self) { $0 } }
}

/// Yams' `_typeMismatch`, word for word.
private func typeMismatch(_ codingPath: [CodingKey], expectation: Any.Type, reality: Any) -> DecodingError {
    let realityType = type(of: reality)
    let key = TypeMismatchKey(expectation: ObjectIdentifier(expectation), reality: ObjectIdentifier(realityType))
    // The message names both types, and naming a type at run time is not cheap: an OpenAPI
    // description's `example` values are decoded by trying types in turn (OpenAPIKit's
    // AnyCodable), 13 000 mismatches for two small descriptions, 20 M instructions when each
    // message was made anew. Each pair's message is made once.
    let description = typeMismatchMessages.withLock { known in
        if let message = known[key] { return message }
        let message = "Expected to decode \(expectation) but found \(realityType) instead."
        known[key] = message
        return message
    }
    return .typeMismatch(expectation, DecodingError.Context(codingPath: codingPath, debugDescription: description))
}

private struct TypeMismatchKey: Hashable {
    let expectation: ObjectIdentifier
    let reality: ObjectIdentifier
}

private let typeMismatchMessages = Mutex<[TypeMismatchKey: String]>([:])
