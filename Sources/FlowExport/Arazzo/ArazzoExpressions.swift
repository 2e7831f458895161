import FlowModel
import Foundation

/// How flowspec's `{{name}}` placeholders and `expect` lines read as Arazzo runtime
/// expressions and criteria, in both directions (export writes them, import reads them back).
///
/// - a declared variable or a `provider.*` value is a workflow input: `{$inputs.name}`,
///   `{$inputs.provider.code}` (the provider values form one `provider` object input);
/// - a value captured by an earlier step is that step's output: `{$steps.step-6.outputs.session}`.
public enum ArazzoExpressions {
    /// `template` with every `{{name}}` replaced by its embedded runtime expression.
    /// `producers` maps a captured name to the stepId that captures it.
    public static func embed(_ template: String, producers: [String: String]) -> String {
        rewrite(template, open: "{{", close: "}}") { name in
            "{" + expression(for: name, producers: producers) + "}"
        }
    }

    /// The runtime expression (without braces) for a placeholder name.
    public static func expression(for name: String, producers: [String: String]) -> String {
        if let step = producers[name] { return "$steps.\(step).outputs.\(name)" }
        return "$inputs.\(name)"
    }

    /// The reverse of `embed`: `{$inputs.x}` and `{$steps.s.outputs.x}` become `{{x}}`.
    public static func placeholders(in text: String) -> String {
        rewrite(text, open: "{$", close: "}") { expression in
            placeholderName(ofExpression: "$" + expression).map { "{{\($0)}}" }
        }
    }

    /// `x` for `$inputs.x` and `$steps.s.outputs.x`; nil for any other expression.
    public static func placeholderName(ofExpression expression: String) -> String? {
        if expression.hasPrefix("$inputs.") { return String(expression.dropFirst("$inputs.".count)) }
        let parts = expression.split(separator: ".", maxSplits: 3).map(String.init)
        if parts.count == 4, parts[0] == "$steps", parts[2] == "outputs" { return parts[3] }
        return nil
    }

    /// Replaces each `open…close` segment with `replacement(inner)`, or keeps it when that is nil.
    static func rewrite(_ text: String, open: String, close: String, _ replacement: (String) -> String?) -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            out += rest[..<start.lowerBound]
            let afterOpen = rest[start.upperBound...]
            guard let end = afterOpen.range(of: close) else {
                rest = rest[start.lowerBound...]
                break
            }
            let inner = String(afterOpen[..<end.lowerBound])
            if let replaced = replacement(inner.trimmingCharacters()) {
                out += replaced
            } else {
                out += rest[start.lowerBound..<end.upperBound]
            }
            rest = afterOpen[end.upperBound...]
        }
        return out + rest
    }

    /// Every `{{name}}` in `text`, in order.
    public static func names(in text: String) -> [String] {
        var found: [String] = []
        _ = rewrite(text, open: "{{", close: "}}") { name in
            found.append(name)
            return nil
        }
        return found
    }

    // MARK: JSON paths and pointers

    /// `$.a.b[0]` as the JSON Pointer `/a/b/0` (RFC 6901).
    public static func pointer(_ path: JSONPath) -> String {
        path.components.map { component in
            switch component {
            case .key(let key): "/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let index): "/\(index)"
            }
        }.joined()
    }

    /// The reverse of `pointer`: numeric tokens are array indices.
    public static func path(fromPointer pointer: String) -> JSONPath {
        let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return JSONPath(components: tokens.map { token in
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let index = Int(key), String(index) == key { return .index(index) }
            return .key(key)
        })
    }

    // MARK: Status criteria

    /// `$statusCode == 200 || ($statusCode >= 400 && $statusCode < 500)`.
    public static func statusCondition(_ status: StatusExpectation) -> String {
        let codes = status.codes.map { "$statusCode == \($0)" }
        let classes = status.classes.map { "($statusCode >= \($0 * 100) && $statusCode < \($0 * 100 + 100))" }
        return (codes + classes).joined(separator: " || ")
    }

    /// The codes and classes of a condition written by `statusCondition`, or nil.
    public static func status(fromCondition condition: String) -> (codes: [Int], classes: [Int])? {
        var codes: [Int] = [], classes: [Int] = []
        for part in condition.components(separatedBy: " || ") {
            let text = part.trimmingCharacters()
            if text.hasPrefix("$statusCode == "), let code = Int(text.dropFirst("$statusCode == ".count)) {
                codes.append(code)
            } else if text.hasPrefix("($statusCode >= "), let low = Int(text.dropFirst("($statusCode >= ".count).prefix { $0.isNumber }), low % 100 == 0 {
                classes.append(low / 100)
            } else {
                return nil
            }
        }
        return codes.isEmpty && classes.isEmpty ? nil : (codes, classes)
    }

    /// A literal for a simple condition: strings single-quoted, the rest as JSON.
    public static func literal(_ value: JSONNode) -> String {
        if case .string(let text) = value { return "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }
        return value.description
    }
}
