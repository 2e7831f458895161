import FlowMocks
import FlowModel
import Foundation

/// `{{name}}` substitution over a request template.
public struct Interpolator: Sendable {
    public var values: [String: String]

    public init(values: [String: String]) {
        self.values = values
    }

    public enum Failure: Error, Hashable, CustomStringConvertible {
        case missing(String)
        public var description: String {
            switch self {
            case .missing(let name): "{{\(name)}} has no value here (not declared, not captured by an earlier step, not supplied by the provider)"
            }
        }
    }

    /// Names used in `text`, in order.
    public static func names(in text: String) -> [String] { Placeholders.names(in: text) }

    public func apply(_ text: String) throws(Failure) -> String {
        var missing: String?
        let out = Placeholders.fill(text) { name in
            if let value = values[name] { return value }
            if missing == nil { missing = name }
            return nil
        }
        if let missing { throw .missing(missing) }
        return out
    }

    /// The concrete request for a template against `baseURL`.
    public func request(_ template: RequestTemplate, baseURL: String) throws(Failure) -> OutgoingRequest {
        let target = try apply(template.target)
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        var headers: [HeaderField] = []
        for field in template.headers {
            headers.append(HeaderField(name: field.name, value: try apply(field.value)))
        }
        let body = try template.body.map { (text: String) throws(Failure) -> [UInt8] in Array(try apply(text).utf8) }
        return OutgoingRequest(method: template.method, url: base + target, headers: headers, body: body)
    }
}

/// Judges a response against an `expect` block and takes its captures.
public struct ExpectationCheck: Sendable {
    public var problems: [String]
    public var captures: [String: String]

    public var passed: Bool { problems.isEmpty }

    public init(expectation: Expectation?, response: HTTPResult, interpolator: Interpolator) {
        var problems: [String] = []
        var captures: [String: String] = [:]
        guard let status = response.status else {
            self.problems = ["no response: \(response.failure?.description ?? "unknown failure")"]
            self.captures = [:]
            return
        }
        let expectation = expectation
        if let expected = expectation?.status {
            if !expected.accepts(status) {
                var problem = "status \(status), expected \(expected)"
                if (300..<400).contains(status), let location = response.header("Location") {
                    problem += " (redirect to \(Redaction.text(location)), not followed)"
                }
                problems.append(problem)
            }
        } else if !(200..<300).contains(status) {
            problems.append("status \(status), expected 2xx (the step has no status expectation)")
        }
        if response.truncated {
            problems.append("body larger than \(response.body.count) bytes: cut, JSON assertions cannot be judged")
        }
        for header in expectation?.headers ?? [] {
            let value = response.header(header.name)
            if let problem = Self.judge(value.map(JSONNode.string), matcher: header.matcher, what: "header \(header.name)", interpolator: interpolator) {
                problems.append(problem)
            }
        }
        let needsJSON = !(expectation?.json.isEmpty ?? true)
            || (expectation?.captures.contains { if case .json = $0.source { true } else { false } } ?? false)
        var json: JSONNode?
        if needsJSON, !response.truncated {
            json = Self.parseJSON(response.body)
            if json == nil {
                let type = response.header("Content-Type") ?? "no Content-Type"
                problems.append("body is not JSON (\(type), \(response.body.count) bytes)")
            }
        }
        if let json {
            for assertion in expectation?.json ?? [] {
                let value = assertion.path.evaluate(in: json)
                if let problem = Self.judge(value, matcher: assertion.matcher, what: assertion.path.description, interpolator: interpolator) {
                    problems.append(problem)
                }
            }
        }
        for capture in expectation?.captures ?? [] {
            switch capture.source {
            case .header(let name):
                if let value = response.header(name) { captures[capture.name] = value }
                else { problems.append("capture \(capture.name): no header \(name)") }
            case .json(let path):
                guard let json else { continue }
                switch path.evaluate(in: json) {
                case .string(let text)?: captures[capture.name] = text
                case let value?: captures[capture.name] = value.description
                case nil: problems.append("capture \(capture.name): \(path) is absent")
                }
            }
        }
        self.problems = problems
        self.captures = captures
    }

    static func parseJSON(_ body: [UInt8]) -> JSONNode? { JSONNode.parse(body) }

    /// Nil when `value` satisfies `matcher`, else the problem.
    static func judge(_ value: JSONNode?, matcher: ValueMatcher, what: String, interpolator: Interpolator) -> String? {
        switch matcher {
        case .exists(let present):
            if present, value == nil { return "\(what) is absent, expected present" }
            if !present, value != nil { return "\(what) is present, expected absent" }
            return nil
        case .type(let type):
            guard let value else { return "\(what) is absent, expected \(type.rawValue)" }
            return value.typeName == type ? nil : "\(what) is \(value.typeName.rawValue), expected \(type.rawValue)"
        case .equals(let expected):
            let resolved: JSONNode
            if case .string(let text) = expected, let interpolated = try? interpolator.apply(text) {
                resolved = .string(interpolated)
            } else {
                resolved = expected
            }
            guard let value else { return "\(what) is absent, expected \(Redaction.text(resolved.description))" }
            return value == resolved ? nil
                : "\(what) is \(Redaction.text(value.description).prefix(120)), expected \(Redaction.text(resolved.description))"
        case .matches(let pattern):
            guard let value else { return "\(what) is absent, expected to match /\(pattern)/" }
            let text: String
            if case .string(let s) = value { text = s } else { text = value.description }
            guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return "pattern /\(pattern)/ is not a valid regular expression" }
            let range = NSRange(location: 0, length: (text as NSString).length)
            return regex.firstMatch(in: text, range: range) == nil ? "\(what) is \(Redaction.text(text).prefix(120)), expected to match /\(pattern)/" : nil
        }
    }
}
