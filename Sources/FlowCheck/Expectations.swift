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
    /// What did not hold, each a keyed sentence (the site says them in the page's language).
    public var findings: [VerdictMessage]
    public var captures: [String: String]

    /// The findings in English.
    public var problems: [String] { findings.map(\.english) }
    /// The findings as one message (`; ` between them).
    public var summary: VerdictMessage { VerdictMessage.list(findings) }

    public var passed: Bool { findings.isEmpty }

    public init(expectation: Expectation?, response: HTTPResult, interpolator: Interpolator) {
        var problems: [VerdictMessage] = []
        var captures: [String: String] = [:]
        guard let status = response.status else {
            let failure = response.failure?.message ?? VerdictMessage(.transportOther, ["error": "unknown failure"])
            self.findings = [VerdictMessage(.noResponse, quoting: failure, text: response.failure?.description ?? "unknown failure", as: "failure")]
            self.captures = [:]
            return
        }
        let expectation = expectation
        if let expected = expectation?.status {
            if !expected.accepts(status) {
                let args = ["status": String(status), "expected": "\(expected)"]
                if (300..<400).contains(status), let location = response.header("Location") {
                    problems.append(VerdictMessage(.statusUnexpectedRedirect, args.merging(["location": Redaction.text(location)]) { a, _ in a }))
                } else {
                    problems.append(VerdictMessage(.statusUnexpected, args))
                }
            }
        } else if !(200..<300).contains(status) {
            problems.append(VerdictMessage(.statusNot2xx, ["status": String(status)]))
        }
        if response.truncated {
            problems.append(VerdictMessage(.bodyTruncated, ["bytes": String(response.body.count)]))
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
                problems.append(VerdictMessage(.bodyNotJSON, ["type": type, "bytes": String(response.body.count)]))
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
                else { problems.append(VerdictMessage(.captureNoHeader, ["name": capture.name, "header": name])) }
            case .json(let path):
                guard let json else { continue }
                switch path.evaluate(in: json) {
                case .string(let text)?: captures[capture.name] = text
                case let value?: captures[capture.name] = value.description
                case nil: problems.append(VerdictMessage(.captureAbsent, ["name": capture.name, "path": path.description]))
                }
            }
        }
        self.findings = problems
        self.captures = captures
    }

    static func parseJSON(_ body: [UInt8]) -> JSONNode? { JSONNode.parse(body) }

    /// Nil when `value` satisfies `matcher`, else the problem.
    static func judge(_ value: JSONNode?, matcher: ValueMatcher, what: String, interpolator: Interpolator) -> VerdictMessage? {
        switch matcher {
        case .exists(let present):
            if present, value == nil { return VerdictMessage(.valueAbsentExpectedPresent, ["what": what]) }
            if !present, value != nil { return VerdictMessage(.valuePresentExpectedAbsent, ["what": what]) }
            return nil
        case .type(let type):
            guard let value else { return VerdictMessage(.valueAbsentExpectedType, ["what": what, "type": type.rawValue]) }
            return value.typeName == type ? nil : VerdictMessage(.valueWrongType, ["what": what, "actual": value.typeName.rawValue, "type": type.rawValue])
        case .equals(let expected):
            let resolved: JSONNode
            if case .string(let text) = expected, let interpolated = try? interpolator.apply(text) {
                resolved = .string(interpolated)
            } else {
                resolved = expected
            }
            let expected = Redaction.text(resolved.description)
            guard let value else { return VerdictMessage(.valueAbsentExpectedValue, ["what": what, "expected": expected]) }
            return value == resolved ? nil
                : VerdictMessage(.valueNotExpected, ["what": what, "actual": String(Redaction.text(value.description).prefix(120)), "expected": expected])
        case .matches(let pattern):
            guard let value else { return VerdictMessage(.valueAbsentExpectedMatch, ["what": what, "pattern": pattern]) }
            let text: String
            if case .string(let s) = value { text = s } else { text = value.description }
            guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return VerdictMessage(.patternInvalid, ["pattern": pattern]) }
            let range = NSRange(location: 0, length: (text as NSString).length)
            return regex.firstMatch(in: text, range: range) == nil
                ? VerdictMessage(.valueNoMatch, ["what": what, "actual": String(Redaction.text(text).prefix(120)), "pattern": pattern]) : nil
        }
    }
}

extension TransportFailure {
    /// Why no answer came, as a keyed sentence; its English is `description`.
    var message: VerdictMessage {
        switch self {
        case .timeout(let seconds): VerdictMessage(.transportTimeout, ["seconds": Self.format(seconds)])
        case .connectionRefused: VerdictMessage(.transportRefused)
        case .connectionReset: VerdictMessage(.transportReset)
        case .invalidURL(let url): VerdictMessage(.transportInvalidURL, ["url": url])
        case .other(let text): VerdictMessage(.transportOther, ["error": text])
        }
    }
}
