import FlowModel
import Foundation

/// A text with `{{name}}` placeholders, matched against concrete text: literal parts must be
/// equal, placeholders capture what lies between them. A placeholder whose value is known
/// (a declared variable, or bound earlier in the same request) must match that value exactly.
struct TemplatePattern: Hashable, Sendable {
    enum Part: Hashable, Sendable {
        case literal([UInt8])
        case placeholder(String)
    }

    let parts: [Part]

    init(_ template: String) {
        var parts: [Part] = []
        var literal: [UInt8] = []
        let bytes = Array(template.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{"),
                let close = Self.find([UInt8(ascii: "}"), UInt8(ascii: "}")], in: bytes, from: i + 2)
            {
                let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, !name.contains("{") {
                    if !literal.isEmpty { parts.append(.literal(literal)) }
                    literal = []
                    parts.append(.placeholder(name))
                    i = close + 2
                    continue
                }
            }
            literal.append(bytes[i])
            i += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    var names: [String] {
        parts.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    var hasPlaceholders: Bool { !names.isEmpty }

    /// The template with every placeholder replaced by its value (unknown names left as written).
    func interpolate(_ values: [String: String]) -> String {
        parts.map { part -> String in
            switch part {
            case .literal(let bytes): String(decoding: bytes, as: UTF8.self)
            case .placeholder(let name): values[name] ?? "{{\(name)}}"
            }
        }.joined()
    }

    /// Matches `text`; returns the new bindings and a specificity score (literal bytes matched,
    /// fixed values included), or nil.
    func match(_ text: String, fixed: [String: String], bindings: [String: String]) -> (bindings: [String: String], score: Int)? {
        let resolved: [Part] = parts.map { part in
            if case .placeholder(let name) = part, let value = fixed[name] ?? bindings[name] { return .literal(Array(value.utf8)) }
            return part
        }
        var result = bindings
        var score = 0
        guard Self.match(resolved, 0, Array(text.utf8), 0, &result, &score) else { return nil }
        return (result, score)
    }

    private static func match(_ parts: [Part], _ index: Int, _ text: [UInt8], _ position: Int, _ bindings: inout [String: String], _ score: inout Int) -> Bool {
        guard index < parts.count else { return position == text.count }
        switch parts[index] {
        case .literal(let literal):
            guard position + literal.count <= text.count, text[position..<(position + literal.count)].elementsEqual(literal) else { return false }
            let saved = score
            score += literal.count
            if match(parts, index + 1, text, position + literal.count, &bindings, &score) { return true }
            score = saved
            return false
        case .placeholder(let name):
            if let bound = bindings[name] {
                var rest = parts
                rest[index] = .literal(Array(bound.utf8))
                return match(rest, index, text, position, &bindings, &score)
            }
            if index == parts.count - 1 {
                bindings[name] = String(decoding: text[position...], as: UTF8.self)
                return true
            }
            var end = position
            while end <= text.count {
                if case .literal(let next) = parts[index + 1] {
                    guard let found = find(next, in: text, from: end) else { return false }
                    end = found
                }
                bindings[name] = String(decoding: text[position..<end], as: UTF8.self)
                let saved = score
                if match(parts, index + 1, text, end, &bindings, &score) { return true }
                score = saved
                bindings[name] = nil
                end += 1
            }
            return false
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty else { return start <= haystack.count ? start : nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

/// How an incoming request matched a spec's request template.
struct RequestMatch: Sendable {
    /// Placeholder name → value found in the request.
    var bindings: [String: String]
    /// Literal bytes matched: the more specific template wins.
    var score: Int
}

/// A request template compiled once, when the routes are built: the patterns of its path, query
/// values, headers and body. Matching a request against every candidate of a route then costs
/// no template parsing (before, each candidate re-parsed its JSON body and patterns per request:
/// most of the mock backend's CPU, and a cost per request that grew with the number of flows).
struct CompiledRequest: Sendable {
    enum Body: Sendable {
        case none
        case form([(name: String, pattern: TemplatePattern)])
        case json(JSONTemplate)
        case text(TemplatePattern)
    }

    let method: String
    let path: TemplatePattern
    let query: [(name: String, pattern: TemplatePattern)]
    let headers: [(name: String, pattern: TemplatePattern)]
    let body: Body

    init(_ template: RequestTemplate) {
        method = template.method.uppercased()
        path = TemplatePattern(template.path)
        if let query = template.target.split(separator: "?", maxSplits: 1).dropFirst().first {
            self.query = FormEncoding.decode(String(query)).map { ($0.0, TemplatePattern($0.1)) }
        } else {
            query = []
        }
        headers = template.headers.filter { !RequestMatcher.ignoredHeaders.contains($0.name.lowercased()) }.map { ($0.name, TemplatePattern($0.value)) }
        let text = (template.body ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty {
            body = .none
        } else if (template.header("Content-Type")?.lowercased() ?? "").contains("x-www-form-urlencoded") {
            body = .form(FormEncoding.decode(text).map { ($0.0, TemplatePattern($0.1)) })
        } else if let json = JSONTemplate(text) {
            body = .json(json)
        } else {
            body = .text(TemplatePattern(text))
        }
    }
}

/// The parts of an incoming request a match reads, each decoded once however many candidates
/// it is matched against.
final class IncomingRequest {
    let request: MockHTTPRequest
    init(_ request: MockHTTPRequest) { self.request = request }

    private(set) lazy var path = request.path
    private(set) lazy var query = request.queryItems
    private(set) lazy var form = request.formFields
    private(set) lazy var json: JSONNode? = JSONNode.parse(request.body)
    private(set) lazy var text = request.bodyText.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Matches requests against `http` block templates: method, path, query, the headers the
/// template names (except negotiation headers), and the body (JSON structurally, forms by
/// field, anything else as text).
enum RequestMatcher {
    static let ignoredHeaders: Set<String> = [
        "content-type", "accept", "content-length", "host", "user-agent", "accept-language", "accept-encoding", "connection",
    ]

    /// `optional`: placeholders whose JSON member may be absent or `null` (the mock backend's
    /// `nonce-optional` defect); a correct backend requires every member its template names.
    static func match(_ template: RequestTemplate, _ request: MockHTTPRequest, fixed: [String: String], optional: Set<String> = []) -> RequestMatch? {
        match(CompiledRequest(template), IncomingRequest(request), fixed: fixed, optional: optional)
    }

    static func match(_ template: CompiledRequest, _ incoming: IncomingRequest, fixed: [String: String], optional: Set<String> = []) -> RequestMatch? {
        guard template.method == incoming.request.method else { return nil }
        var bindings: [String: String] = [:]
        var score = 0
        func apply(_ result: (bindings: [String: String], score: Int)?) -> Bool {
            guard let result else { return false }
            bindings = result.bindings
            score += result.score
            return true
        }
        guard apply(template.path.match(incoming.path, fixed: fixed, bindings: bindings)) else { return nil }
        for (name, pattern) in template.query {
            guard let value = incoming.query.first(where: { $0.0 == name })?.1, apply(pattern.match(value, fixed: fixed, bindings: bindings)) else { return nil }
        }
        for (name, pattern) in template.headers {
            guard let value = incoming.request.header(name), apply(pattern.match(value, fixed: fixed, bindings: bindings)) else { return nil }
        }
        switch template.body {
        case .none:
            break
        case .form(let fields):
            for (name, pattern) in fields {
                guard let value = incoming.form.first(where: { $0.0 == name })?.1, apply(pattern.match(value, fixed: fixed, bindings: bindings)) else { return nil }
            }
        case .json(let jsonTemplate):
            guard let value = incoming.json, apply(jsonTemplate.match(value, fixed: fixed, bindings: bindings, optional: optional)) else { return nil }
        case .text(let pattern):
            guard apply(pattern.match(incoming.text, fixed: fixed, bindings: bindings)) else { return nil }
        }
        return RequestMatch(bindings: bindings, score: score)
    }
}

/// A JSON body template whose placeholders all sit inside string literals, matched
/// structurally (key order and whitespace do not matter; extra members are allowed). Its
/// strings are compiled to patterns once.
struct JSONTemplate: Sendable {
    indirect enum Node: Sendable {
        /// A string with its pattern, and the placeholder it consists of alone, if any.
        case string(TemplatePattern, lone: String?)
        /// Members sorted by key.
        case object([(key: String, node: Node)])
        case array([Node])
        /// Any other value, compared as it is, with its text's length as the score.
        case value(JSONNode, score: Int)
    }

    let root: Node
    private static let open = "\u{E000}"
    private static let close = "\u{E001}"

    init?(_ text: String) {
        // Placeholders become private-use markers so the template parses as JSON.
        let pattern = TemplatePattern(text)
        let marked = pattern.parts.map { part -> String in
            switch part {
            case .literal(let bytes): String(decoding: bytes, as: UTF8.self)
            case .placeholder(let name): Self.open + name + Self.close
            }
        }.joined()
        guard let value = JSONNode.parse(marked) else { return nil }
        root = Self.compile(value)
    }

    private static func compile(_ value: JSONNode) -> Node {
        switch value {
        case .string(let text):
            return .string(TemplatePattern(unmark(text)), lone: lonePlaceholder(text))
        case .object(let members):
            return .object(members.keys.sorted().map { ($0, compile(members[$0]!)) })
        case .array(let elements):
            return .array(elements.map(compile))
        default:
            return .value(value, score: value.description.utf8.count)
        }
    }

    func match(_ value: JSONNode, fixed: [String: String], bindings: [String: String], optional: Set<String> = []) -> (bindings: [String: String], score: Int)? {
        var bindings = bindings
        var score = 0
        guard Self.match(root, value, fixed, optional, &bindings, &score) else { return nil }
        return (bindings, score)
    }

    /// The placeholder a template string consists of alone (`"{{provider.nonce}}"`), if any.
    private static func lonePlaceholder(_ text: String) -> String? {
        guard text.hasPrefix(open), text.hasSuffix(close) else { return nil }
        let name = String(text.dropFirst().dropLast())
        return name.contains(open) || name.contains(close) ? nil : name
    }

    private static func unmark(_ text: String) -> String {
        text.replacingOccurrences(of: open, with: "{{").replacingOccurrences(of: close, with: "}}")
    }

    private static func match(_ template: Node, _ value: JSONNode, _ fixed: [String: String], _ optional: Set<String>, _ bindings: inout [String: String], _ score: inout Int) -> Bool {
        switch (template, value) {
        case (.string(let pattern, _), .string(let incoming)):
            guard let result = pattern.match(incoming, fixed: fixed, bindings: bindings) else { return false }
            bindings = result.bindings
            score += result.score + 2
            return true
        case (.object(let members), .object(let incoming)):
            for (key, member) in members {
                if incoming[key] == nil || incoming[key] == .null, case .string(_, let lone?) = member, optional.contains(lone) { continue }
                guard let sub = incoming[key], match(member, sub, fixed, optional, &bindings, &score) else { return false }
                score += key.utf8.count
            }
            return true
        case (.array(let elements), .array(let incoming)):
            guard elements.count == incoming.count else { return false }
            for (element, sub) in zip(elements, incoming) where !match(element, sub, fixed, optional, &bindings, &score) { return false }
            return true
        case (.value(let expected, let length), _):
            guard expected == value else { return false }
            score += length
            return true
        default:
            return false
        }
    }
}
