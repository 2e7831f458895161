import FlowModel
import Foundation

/// Builds the backend's answer from a spec's `expect` block: the status it names, a JSON body
/// that satisfies every assertion, real issued tokens where values are captured, and headers
/// that satisfy the header expectations. What the answer means (accept or reject) is decided
/// before, by the route's behaviour.
struct ResponseSynthesizer {
    /// Values for `{{name}}` in expected values (declared variables, provider values, session).
    var values: [String: String]
    /// Capture name → the token issued for it.
    var captures: [String: String]
    /// Identity of the account in play, for plausible `{ type: string }` values.
    var email: String?
    var subject: String?
    /// Mints a fresh opaque value.
    var freshToken: () -> String

    func response(for expectation: Expectation?, accepted: Bool, errorCode: String?, errorDescription: String?, method: String) -> MockHTTPResponse {
        let status = Self.status(expectation?.status, accepted: accepted)
        var body: JSONNode = .object([:])
        var hasBody = status != 204 && status != 304 && method != "HEAD"
        var absent: [JSONPath] = []
        if let expectation {
            // Shallow paths first, so `$.user: {type: object}` does not overwrite `$.user.email`.
            for assertion in expectation.json.sorted(by: { $0.path.components.count < $1.path.components.count }) {
                if case .exists(false) = assertion.matcher {
                    absent.append(assertion.path)
                    continue
                }
                if assertion.path.components.isEmpty {
                    if let value = value(for: assertion.matcher, path: assertion.path) { body = value }
                    continue
                }
                if let capture = expectation.captures.first(where: { $0.source == .json(assertion.path) }), let token = captures[capture.name],
                    Self.accepts(assertion.matcher, .string(token))
                {
                    body = body.setting(assertion.path, .string(token))
                } else if let value = value(for: assertion.matcher, path: assertion.path) {
                    body = body.setting(assertion.path, value)
                }
            }
            for capture in expectation.captures {
                guard case .json(let path) = capture.source, let token = captures[capture.name] else { continue }
                if path.evaluate(in: body) == nil { body = body.setting(path, .string(token)) }
            }
        }
        if !accepted, case .object(var members) = body, !absent.contains(where: { $0.description == "$.error" }) {
            if members["error"] == nil { members["error"] = .string(errorCode ?? "invalid_request") }
            if let errorDescription, members["error_description"] == nil { members["error_description"] = .string(errorDescription) }
            body = .object(members)
        }
        for path in absent { body = body.removing(path) }
        if status == 204 || status == 304 { hasBody = false }
        var headers: [HeaderField] = []
        if hasBody { headers.append(HeaderField(name: "Content-Type", value: "application/json")) }
        let expectationCaptures = expectation?.captures ?? []
        for expectation in expectation?.headers ?? [] {
            let current = headers.value(of: expectation.name)
            headers.removeAll { $0.name.caseInsensitiveEquals(expectation.name) }
            switch expectation.matcher {
            case .exists(false):
                if expectation.name.lowercased() == "content-type" { hasBody = false }
            case .equals(let value):
                headers.append(HeaderField(name: expectation.name, value: interpolate(value.headerText)))
            case .matches(let pattern):
                let candidates = [current, email, subject, values.values.first].compactMap { $0 }
                headers.append(HeaderField(name: expectation.name, value: RegexSampler.sample(pattern, preferring: candidates) ?? current ?? "x"))
            case .exists(true), .type:
                // A header the step captures carries the value handed out for the capture.
                let captured = (self.expectationCaptures(expectation.name, in: expectationCaptures)).flatMap { captures[$0] }
                headers.append(HeaderField(name: expectation.name, value: captured ?? current ?? freshToken()))
            }
        }
        for capture in expectation?.captures ?? [] {
            guard case .header(let name) = capture.source, let token = captures[capture.name] else { continue }
            if !headers.contains(where: { $0.name.caseInsensitiveEquals(name) }) {
                headers.append(HeaderField(name: name, value: token))
            }
        }
        return MockHTTPResponse(status: status, headers: headers, body: hasBody ? Array(body.description.utf8) : [])
    }

    /// The capture that reads header `name`, if any.
    private func expectationCaptures(_ name: String, in captures: [Capture]) -> String? {
        captures.first { capture in
            if case .header(let header) = capture.source { return header.caseInsensitiveEquals(name) }
            return false
        }?.name
    }

    static func status(_ expectation: StatusExpectation?, accepted: Bool) -> Int {
        if let expectation {
            if let code = expectation.codes.first { return code }
            if let cls = expectation.classes.first { return cls * 100 }
        }
        return accepted ? 200 : 400
    }

    /// Whether an expectation's status means the backend accepted the request (1xx–3xx).
    static func isSuccess(_ expectation: Expectation?) -> Bool {
        status(expectation?.status, accepted: true) < 400
    }

    /// `{{name}}` replaced by its value. A name with no value (lint reports those: FS404,
    /// FS405) gets a fresh opaque one: an answer never carries a placeholder.
    private func interpolate(_ text: String) -> String {
        let pattern = TemplatePattern(text)
        var known = values.merging(captures) { a, _ in a }
        for name in pattern.names where known[name] == nil { known[name] = freshToken() }
        return pattern.interpolate(known)
    }

    private func value(for matcher: ValueMatcher, path: JSONPath) -> JSONNode? {
        switch matcher {
        case .equals(let value): return interpolated(value)
        case .exists(true): return .string(plausibleString(for: path))
        case .exists(false): return nil
        case .type(let type):
            switch type {
            case .string: return .string(plausibleString(for: path))
            case .number: return .number(1)
            case .boolean: return .bool(true)
            case .array: return .array([])
            case .object: return .object([:])
            case .null: return .null
            }
        case .matches(let pattern):
            let candidates = [plausibleString(for: path), email, subject, freshToken()].compactMap { $0 }
            return RegexSampler.sample(pattern, preferring: candidates).map(JSONNode.string)
        }
    }

    private func interpolated(_ value: JSONNode) -> JSONNode {
        switch value {
        case .string(let text): .string(interpolate(text))
        case .array(let values): .array(values.map(interpolated))
        case .object(let members): .object(members.mapValues(interpolated))
        default: value
        }
    }

    private func plausibleString(for path: JSONPath) -> String {
        guard case .key(let last)? = path.components.last else { return freshToken() }
        let key = last.lowercased()
        if key.contains("email"), let email { return email }
        if key == "sub" || key.hasSuffix("_id") || key == "id" || key.hasSuffix("sub"), let subject { return subject }
        if key.contains("token") || key.contains("session") { return freshToken() }
        return subject ?? freshToken()
    }

    static func accepts(_ matcher: ValueMatcher, _ value: JSONNode) -> Bool {
        switch matcher {
        case .equals(let expected): expected == value
        case .type(let type): value.typeName == type
        case .exists(let present): present
        case .matches(let pattern):
            if case .string(let text) = value { RegexSampler.fullMatch(pattern, text) } else { false }
        }
    }
}

extension JSONNode {
    /// The value as a header's text: a string as itself, anything else as compact JSON.
    var headerText: String {
        if case .string(let text) = self { return text }
        return description
    }

    /// A copy with `value` at `path`, creating objects (and arrays, padded with null) on the way.
    func setting(_ path: JSONPath, _ value: JSONNode) -> JSONNode {
        Self.set(self, ArraySlice(path.components), value)
    }

    private static func set(_ node: JSONNode, _ components: ArraySlice<JSONPath.Component>, _ value: JSONNode) -> JSONNode {
        guard let first = components.first else { return value }
        let rest = components.dropFirst()
        switch first {
        case .key(let key):
            var members = JSONObject()
            if case .object(let existing) = node { members = existing }
            members[key] = set(members[key] ?? .null, rest, value)
            return .object(members)
        case .index(let index):
            var elements: [JSONNode] = []
            if case .array(let existing) = node { elements = existing }
            while elements.count <= index { elements.append(.null) }
            elements[index] = set(elements[index], rest, value)
            return .array(elements)
        }
    }

    func removing(_ path: JSONPath) -> JSONNode {
        Self.remove(self, ArraySlice(path.components))
    }

    private static func remove(_ node: JSONNode, _ components: ArraySlice<JSONPath.Component>) -> JSONNode {
        guard let first = components.first else { return node }
        let rest = components.dropFirst()
        switch (first, node) {
        case (.key(let key), .object(var members)):
            if rest.isEmpty { members[key] = nil } else if let child = members[key] { members[key] = remove(child, rest) }
            return .object(members)
        case (.index(let index), .array(var elements)) where elements.indices.contains(index):
            if !rest.isEmpty { elements[index] = remove(elements[index], rest) }
            return .array(elements)
        default:
            return node
        }
    }
}
