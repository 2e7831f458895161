import FlowExport
import FlowModel
import Foundation

extension ArazzoReader {
    /// A workflow step's operation, parameters and body as an `http` block, its criteria and
    /// outputs as an `expect` block.
    mutating func exchange(_ call: ArazzoDocument.Step) -> Exchange? {
        guard let operation = operation(of: call) else {
            unmapped("step '\(call.stepId)': operation \(call.operationPath ?? call.operationId ?? "(none)") not found: no http block")
            return nil
        }
        var path = operation.path
        var query: [String] = []
        var headers: [HeaderField] = []
        for parameter in call.parameters ?? [] {
            let value = Self.text(parameter.value)
            switch parameter.location {
            case "path": path = path.replacingOccurrences(of: "{\(parameter.name)}", with: value)
            case "query": query.append(parameter.name + "=" + value)
            case "header": headers.append(HeaderField(name: parameter.name, value: value))
            default: unmapped("step '\(call.stepId)': parameter '\(parameter.name)' in \(parameter.location ?? "nowhere"): not mapped")
            }
        }
        var body: String?
        if let requestBody = call.requestBody {
            if let type = requestBody.contentType { headers.append(HeaderField(name: "Content-Type", value: type)) }
            body = requestBody.payload.map(Self.text)
        }
        let target = path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let request = RequestTemplate(method: operation.method, target: target, headers: headers, body: body, location: here)
        let hasExpectation = call.successCriteria != nil || call.outputs != nil
        return Exchange(request: request, expectation: hasExpectation ? expectation(call.successCriteria ?? [], outputs: call.outputs) : nil)
    }

    private func operation(of call: ArazzoDocument.Step) -> (method: String, path: String)? {
        if let path = call.operationPath { return ArazzoRequest.operation(fromPath: path) }
        return call.operationId.flatMap { operations.byID[$0] }
    }

    /// A parameter value or payload as spec text: runtime expressions back to placeholders
    /// (a string that is one whole expression too), JSON compact with sorted keys.
    static func text(_ value: JSONNode) -> String {
        switch value {
        case .string(let text): return placeholders(text)
        default: return strings(value, placeholders).description
        }
    }

    static func placeholders(_ text: String) -> String {
        if text.hasPrefix("$"), let name = ArazzoExpressions.placeholderName(ofExpression: text) { return "{{\(name)}}" }
        return ArazzoExpressions.placeholders(in: text)
    }

    static func strings(_ value: JSONNode, _ transform: (String) -> String) -> JSONNode {
        switch value {
        case .string(let text): .string(transform(text))
        case .array(let values): .array(values.map { strings($0, transform) })
        case .object(let members): .object(members.mapValues { strings($0, transform) })
        default: value
        }
    }

    /// Criteria and outputs as an `expect` block: flowspec's own criteria by their
    /// `x-flowspec` line, others by the forms flowspec writes; the rest is reported.
    mutating func expectation(_ criteria: [ArazzoDocument.Criterion], outputs: [String: String]?) -> Expectation {
        var expectation = Expectation(location: here)
        for criterion in criteria {
            if let origin = criterion.origin {
                if let header = origin.header {
                    expectation.headers.append(HeaderExpectation(name: header, matcher: origin.matcher, location: here))
                } else if let json = origin.json.flatMap(JSONPath.init(parsing:)) {
                    expectation.json.append(JSONAssertion(path: json, matcher: origin.matcher, location: here))
                }
            } else if criterion.type == nil, let status = ArazzoExpressions.status(fromCondition: criterion.condition) {
                expectation.status = StatusExpectation(codes: status.codes, classes: status.classes, location: here)
            } else if let (subject, matcher) = Self.matcher(criterion) {
                if subject.hasPrefix("$response.header.") {
                    expectation.headers.append(HeaderExpectation(name: String(subject.dropFirst("$response.header.".count)), matcher: matcher, location: here))
                } else {
                    let path = ArazzoExpressions.path(fromPointer: String(subject.dropFirst("$response.body#".count)))
                    expectation.json.append(JSONAssertion(path: path, matcher: matcher, location: here))
                }
            } else {
                unmapped("criterion '\(criterion.condition)' not mapped: write it in the expect block by hand")
            }
        }
        for (name, source) in (outputs ?? [:]).sorted(by: { $0.key < $1.key }) {
            if source.hasPrefix("$response.body#") {
                let path = ArazzoExpressions.path(fromPointer: String(source.dropFirst("$response.body#".count)))
                expectation.captures.append(Capture(name: name, source: .json(path), location: here))
            } else if source.hasPrefix("$response.header.") {
                expectation.captures.append(Capture(name: name, source: .header(String(source.dropFirst("$response.header.".count))), location: here))
            } else {
                unmapped("output '\(name)' (\(source)) not mapped: only response body and header values are captures")
            }
        }
        return expectation
    }

    /// `SUBJECT == literal`, `SUBJECT != null`, `SUBJECT == null`, or a regex on a context,
    /// where SUBJECT is `$response.body#/…` or `$response.header.…`.
    static func matcher(_ criterion: ArazzoDocument.Criterion) -> (String, ValueMatcher)? {
        func isSubject(_ text: String) -> Bool { text.hasPrefix("$response.body#/") || text.hasPrefix("$response.header.") }
        if criterion.type == "regex", let context = criterion.context, isSubject(context) {
            var pattern = criterion.condition
            if pattern.hasPrefix("^(?:"), pattern.hasSuffix(")$") { pattern = String(pattern.dropFirst(4).dropLast(2)) }
            return (context, .matches(pattern))
        }
        guard criterion.type == nil || criterion.type == "simple" else { return nil }
        for (operator_, present) in [(" != ", true), (" == ", false)] {
            let parts = criterion.condition.components(separatedBy: operator_)
            guard parts.count == 2, isSubject(parts[0]) else { continue }
            let right = parts[1].trimmingCharacters(in: .whitespaces)
            if right == "null" { return (parts[0], .exists(present)) }
            guard !present else { return nil }
            if right.hasPrefix("'"), right.hasSuffix("'"), right.count >= 2 {
                return (parts[0], .equals(.string(placeholders(String(right.dropFirst().dropLast()).replacingOccurrences(of: "\\'", with: "'")))))
            }
            if let value = JSONNode.parse(right) { return (parts[0], .equals(value)) }
        }
        return nil
    }
}
