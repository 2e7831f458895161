import FlowModel
import Foundation

/// One `http` block as an Arazzo step's operation, parameters and request body, and one
/// `expect` block as its success criteria and outputs.
public struct ArazzoRequest: Hashable, Sendable {
    public var method: String
    /// The OpenAPI path template: `/api/carts/{cart}/items`.
    public var path: String
    public var parameters: [ArazzoDocument.Parameter]
    public var requestBody: ArazzoDocument.RequestBody?

    public init(_ request: RequestTemplate, producers: [String: String]) {
        method = request.method.uppercased()
        let parts = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var parameters: [ArazzoDocument.Parameter] = []
        var names = Set<String>()
        path = parts[0].split(separator: "/", omittingEmptySubsequences: false).map { segment in
            let text = String(segment)
            guard let first = ArazzoExpressions.names(in: text).first else { return text }
            var name = String(first.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
            while !names.insert(name).inserted { name += "_" }
            parameters.append(.init(name: name, location: "path", value: .string(ArazzoExpressions.embed(text, producers: producers))))
            return "{\(name)}"
        }.joined(separator: "/")
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                parameters.append(.init(name: field[0], location: "query",
                                        value: .string(ArazzoExpressions.embed(field.count == 2 ? field[1] : "", producers: producers))))
            }
        }
        for header in request.headers where !(request.body != nil && header.name.lowercased() == "content-type") {
            parameters.append(.init(name: header.name, location: "header", value: .string(ArazzoExpressions.embed(header.value, producers: producers))))
        }
        self.parameters = parameters
        requestBody = request.body.map { body in
            let contentType = request.header("Content-Type")
            return ArazzoDocument.RequestBody(contentType: contentType, payload: Self.payload(body, contentType: contentType, producers: producers))
        }
    }

    /// A JSON body as a JSON payload (placeholders inside strings become embedded expressions);
    /// any other body, or JSON that only parses with its placeholders filled, as a string.
    static func payload(_ body: String, contentType: String?, producers: [String: String]) -> JSONNode {
        if contentType == nil || contentType?.lowercased().contains("json") == true,
           let value = JSONNode.parse(body) {
            return embedded(value, producers: producers)
        }
        return .string(ArazzoExpressions.embed(body, producers: producers))
    }

    static func embedded(_ value: JSONNode, producers: [String: String]) -> JSONNode {
        switch value {
        case .string(let text): .string(ArazzoExpressions.embed(text, producers: producers))
        case .array(let values): .array(values.map { embedded($0, producers: producers) })
        case .object(let members): .object(members.mapValues { embedded($0, producers: producers) })
        default: value
        }
    }

    /// `{$sourceDescriptions.backend.url}#/paths/~1api~1login/post` (RFC 6901 in a URI fragment).
    public func operationPath(source: String) -> String {
        let escaped = path.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            .replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D")
        return "{$sourceDescriptions.\(source).url}#/paths/\(escaped)/\(method.lowercased())"
    }

    /// Method and path template of an `operationPath` written by `operationPath(source:)`.
    public static func operation(fromPath operationPath: String) -> (method: String, path: String)? {
        guard let hash = operationPath.firstIndex(of: "#") else { return nil }
        let pointer = operationPath[operationPath.index(after: hash)...]
        guard pointer.hasPrefix("/paths/") else { return nil }
        let rest = pointer.dropFirst("/paths/".count)
        guard let slash = rest.lastIndex(of: "/") else { return nil }
        let path = String(rest[..<slash]).replacingOccurrences(of: "%7B", with: "{").replacingOccurrences(of: "%7D", with: "}")
            .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        return (String(rest[rest.index(after: slash)...]).uppercased(), path)
    }
}

/// An `expect` block as Arazzo success criteria; each criterion but the status one keeps the
/// exact `expect` line in `x-flowspec` (Arazzo conditions have no type test).
public enum ArazzoCriteria {
    public static func criteria(for expectation: Expectation, producers: [String: String]) -> [ArazzoDocument.Criterion] {
        var result: [ArazzoDocument.Criterion] = []
        if let status = expectation.status { result.append(.init(condition: ArazzoExpressions.statusCondition(status))) }
        for header in expectation.headers {
            let origin = ArazzoDocument.CriterionOrigin(header: header.name, matcher: header.matcher)
            result.append(criterion(subject: "$response.header.\(header.name)", header.matcher, origin: origin, producers: producers))
        }
        for assertion in expectation.json {
            let origin = ArazzoDocument.CriterionOrigin(json: assertion.path.description, matcher: assertion.matcher)
            let subject = "$response.body#" + ArazzoExpressions.pointer(assertion.path)
            result.append(criterion(subject: subject, assertion.matcher, origin: origin, producers: producers))
        }
        return result
    }

    static func criterion(subject: String, _ matcher: ValueMatcher, origin: ArazzoDocument.CriterionOrigin,
                          producers: [String: String]) -> ArazzoDocument.Criterion {
        switch matcher {
        case .equals(let value):
            let literal = ArazzoExpressions.literal(ArazzoRequest.embedded(value, producers: producers))
            return .init(condition: "\(subject) == \(literal)", origin: origin)
        case .matches(let pattern):
            return .init(context: subject, condition: "^(?:\(pattern))$", type: "regex", origin: origin)
        case .exists(let present):
            return .init(condition: "\(subject) \(present ? "!=" : "==") null", origin: origin)
        case .type(let type):
            return .init(condition: "\(subject) \(type == .null ? "==" : "!=") null", origin: origin)
        }
    }

    /// Captures as step outputs: `$response.body#/session_token`, `$response.header.Location`.
    public static func outputs(for expectation: Expectation) -> [String: String]? {
        guard !expectation.captures.isEmpty else { return nil }
        var outputs: [String: String] = [:]
        for capture in expectation.captures {
            switch capture.source {
            case .json(let path): outputs[capture.name] = "$response.body#" + ArazzoExpressions.pointer(path)
            case .header(let name): outputs[capture.name] = "$response.header.\(name)"
            }
        }
        return outputs
    }
}
