/// The HTTP exchange of a client → backend step: a request template (`http` block) and what
/// the answer must look like (`expect` block).
public struct Exchange: Hashable, Sendable, Codable {
    public var request: RequestTemplate
    public var expectation: Expectation?

    public init(request: RequestTemplate, expectation: Expectation? = nil) {
        self.request = request
        self.expectation = expectation
    }

    /// Every `{{name}}` the exchange uses, in order of appearance.
    public var references: [VariableReference] { request.references + (expectation?.references ?? []) }
}

/// An HTTP request with `{{variable}}` placeholders, as written in an `http` block:
/// request line, headers, blank line, body.
public struct RequestTemplate: Hashable, Sendable, Codable {
    public var method: String
    /// Path and query, e.g. `/api/v1/auth/apple/login`; may contain placeholders.
    public var target: String
    public var headers: [HeaderField]
    public var body: String?
    /// Placeholders used anywhere in the request.
    public var references: [VariableReference]
    /// The opening fence of the `http` block.
    public var location: SourceLocation

    public init(
        method: String,
        target: String,
        headers: [HeaderField] = [],
        body: String? = nil,
        references: [VariableReference] = [],
        location: SourceLocation
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.references = references
        self.location = location
    }

    /// The path without the query string (route matching in the mock backend).
    public var path: String {
        if let index = target.firstIndex(of: "?") { return String(target[..<index]) }
        return target
    }

    /// First header with this name (case-insensitive).
    public func header(_ name: String) -> String? { headers.value(of: name) }
}

extension Sequence where Element == HeaderField {
    /// The first field named `name`, compared case-insensitively (RFC 9110 §5.1): the one
    /// header lookup every request and response type uses.
    public func value(of name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

extension String {
    /// ASCII case-insensitive equality without allocating lowercased copies.
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Equal, or the same ASCII letter in the other case (they differ only in bit 0x20).
        return zip(a, b).allSatisfy { x, y in x == y || (x ^ y == 0x20 && (0x61...0x7A).contains(x | 0x20)) }
    }
}

public struct HeaderField: Hashable, Sendable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A `{{name}}` placeholder and where it was written. Names are declared variables, earlier
/// captures, or values the mock provider supplies (`provider.code`, …).
public struct VariableReference: Hashable, Sendable, Codable {
    public var name: String
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }

    /// Values the mock provider produces during a run, usable without declaration.
    public static let providerValues: [String: String] = [
        "provider.code": "the authorization code the provider issued",
        "provider.id_token": "the ID token the provider issued (signed JWT)",
        "provider.nonce": "the raw nonce the client generated (the provider saw its SHA-256 on native flows)",
        "provider.state": "the state value sent to the authorization endpoint",
        "provider.email": "the user's e-mail (possibly a private relay address)",
        "provider.sub": "the user's stable identifier at the provider",
        "provider.user": "the user JSON the provider posts on first sign-in (name, email)",
        "provider.notification": "a signed server-to-server notification payload (JWT)",
        "provider.refresh_token": "a refresh token the provider issued to the backend",
    ]
}

/// What a response must look like: the `expect` block.
public struct Expectation: Hashable, Sendable, Codable {
    public var status: StatusExpectation?
    public var headers: [HeaderExpectation]
    public var json: [JSONAssertion]
    /// Values taken from the response for later steps (`{{name}}`).
    public var captures: [Capture]
    /// Placeholders used in expected values.
    public var references: [VariableReference]
    /// The opening fence of the `expect` block.
    public var location: SourceLocation

    public init(
        status: StatusExpectation? = nil,
        headers: [HeaderExpectation] = [],
        json: [JSONAssertion] = [],
        captures: [Capture] = [],
        references: [VariableReference] = [],
        location: SourceLocation
    ) {
        self.status = status
        self.headers = headers
        self.json = json
        self.captures = captures
        self.references = references
        self.location = location
    }
}

/// Accepted status codes: exact codes and/or classes like `4xx`.
public struct StatusExpectation: Hashable, Sendable, Codable, CustomStringConvertible {
    public var codes: [Int]
    /// Leading digits of accepted classes: `4` for `4xx`.
    public var classes: [Int]
    public var location: SourceLocation

    public init(codes: [Int] = [], classes: [Int] = [], location: SourceLocation) {
        self.codes = codes
        self.classes = classes
        self.location = location
    }

    public func accepts(_ status: Int) -> Bool {
        codes.contains(status) || classes.contains(status / 100)
    }

    public var description: String {
        (codes.map(String.init) + classes.map { "\($0)xx" }).joined(separator: " | ")
    }
}

public struct HeaderExpectation: Hashable, Sendable, Codable {
    public var name: String
    public var matcher: ValueMatcher
    public var location: SourceLocation

    public init(name: String, matcher: ValueMatcher, location: SourceLocation) {
        self.name = name
        self.matcher = matcher
        self.location = location
    }
}

/// `$.path: matcher` in the `json` map of an `expect` block.
public struct JSONAssertion: Hashable, Sendable, Codable {
    public var path: JSONPath
    public var matcher: ValueMatcher
    public var location: SourceLocation

    public init(path: JSONPath, matcher: ValueMatcher, location: SourceLocation) {
        self.path = path
        self.matcher = matcher
        self.location = location
    }
}

/// What a value must be.
public enum ValueMatcher: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Equal to this JSON value (placeholders in strings are interpolated first).
    case equals(JSONNode)
    /// Of this JSON type.
    case type(JSONType)
    /// Present (`true`) or absent (`false`).
    case exists(Bool)
    /// A string matching this regular expression (anchored to the whole value).
    case matches(String)

    public var description: String {
        switch self {
        case .equals(let value): "= \(value)"
        case .type(let type): "type \(type.rawValue)"
        case .exists(let present): present ? "exists" : "absent"
        case .matches(let pattern): "matches /\(pattern)/"
        }
    }
}

/// `name: $.path` (or `name: header Name`) in the `capture` map of an `expect` block.
public struct Capture: Hashable, Sendable, Codable {
    public var name: String
    public var source: Source
    public var location: SourceLocation

    public enum Source: Hashable, Sendable, Codable, CustomStringConvertible {
        case json(JSONPath)
        case header(String)

        public var description: String {
            switch self {
            case .json(let path): path.description
            case .header(let name): "header \(name)"
            }
        }
    }

    public init(name: String, source: Source, location: SourceLocation) {
        self.name = name
        self.source = source
        self.location = location
    }
}

/// The JSONPath subset flowspec supports: `$`, `.name`, `['name']`, `[index]`.
/// Enough for response bodies; deliberately no filters or wildcards, so every assertion names
/// exactly one value.
public struct JSONPath: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Component: Hashable, Sendable, Codable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(components: [Component]) {
        self.components = components
    }

    /// Parses `$.a.b[0]['c d']`; nil when the text is not in the supported subset.
    public init?(parsing text: String) {
        switch Self.parseASCII(text.trimmingCharacters()) {
        case .parsed(let components): self.init(components: components)
        case .invalid: return nil
        case .notASCII: self.init(parsingCharacters: text)
        }
    }

    /// `init(parsing:)` read Character by Character: the reading for any text, and the reference
    /// of `parseASCII`.
    init?(parsingCharacters text: String) {
        var chars = Array(text.trimmingCharacters())
        guard chars.first == "$" else { return nil }
        chars.removeFirst()
        var components: [Component] = []
        var i = 0
        func isNameChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "-" }
        while i < chars.count {
            if chars[i] == "." {
                i += 1
                let start = i
                while i < chars.count, isNameChar(chars[i]) { i += 1 }
                guard i > start else { return nil }
                components.append(.key(String(chars[start..<i])))
            } else if chars[i] == "[" {
                i += 1
                guard i < chars.count else { return nil }
                if chars[i] == "'" || chars[i] == "\"" {
                    let quote = chars[i]
                    i += 1
                    let start = i
                    while i < chars.count, chars[i] != quote { i += 1 }
                    guard i < chars.count else { return nil }
                    components.append(.key(String(chars[start..<i])))
                    i += 1
                } else {
                    let start = i
                    while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                    guard i > start, let index = Int(String(chars[start..<i])) else { return nil }
                    components.append(.index(index))
                }
                guard i < chars.count, chars[i] == "]" else { return nil }
                i += 1
            } else {
                return nil
            }
        }
        self.components = components
    }

    public var description: String {
        "$" + components.map { component in
            switch component {
            case .key(let key):
                key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) && !key.isEmpty
                    ? ".\(key)" : "['\(key)']"
            case .index(let index): "[\(index)]"
            }
        }.joined()
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let path = JSONPath(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad JSONPath \(text)"))
        }
        self = path
    }

    /// The value this path names inside `root`, or nil when it is absent.
    public func evaluate(in root: JSONNode) -> JSONNode? {
        var current = root
        for component in components {
            switch (component, current) {
            case (.key(let key), .object(let members)):
                guard let next = members[key] else { return nil }
                current = next
            case (.index(let index), .array(let values)):
                guard values.indices.contains(index) else { return nil }
                current = values[index]
            default:
                return nil
            }
        }
        return current
    }
}

