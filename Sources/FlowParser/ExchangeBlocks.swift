import FlowModel
import Foundation
import Yams

/// A fenced code block's content with enough position data to point at any character in it.
struct CodeBlockContent {
    let literal: String
    /// File line of the opening fence.
    let fenceLine: Int
    /// Code-point column of the fence (content of list-nested blocks is indented by it).
    let fenceColumn: Int
    let source: SourceText

    var fenceLocation: SourceLocation { source.location(line: fenceLine, column: fenceColumn) }

    /// Lines of the literal (content line 1 = file line `fenceLine + 1`).
    var lines: [String] {
        var lines = Self.splitLines(literal)
        if lines.last == "" { lines.removeLast() }
        // A last Character "\r" is a last byte 0x0D: a control is a Character of its own (GB4,
        // GB5), and "\r\n" cannot end a line split at "\n".
        return lines.map { $0.utf8.last == 0x0D ? String($0.dropLast()) : $0 }
    }

    /// `text` split at `\n` Characters. Without a CR LF pair (one Character, never split), that
    /// is a split at `\n` bytes: a line feed is always a Character of its own otherwise.
    static func splitLines(_ text: String) -> [String] {
        guard !text.utf8Contains("\r\n") else {
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        var text = text
        return text.withUTF8 { bytes in
            var lines: [String] = []
            var start = 0
            for index in 0..<bytes.count where bytes[index] == 0x0A {
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return lines
        }
    }

    /// Location of code-point `column` (1-based) in content line `line` (1-based).
    func location(line: Int, column: Int) -> SourceLocation {
        source.location(line: fenceLine + line, column: fenceColumn + column - 1)
    }
}

/// Finds `{{name}}` placeholders; reports unterminated or empty ones.
func scanPlaceholders(
    in text: String, at location: (Int) -> SourceLocation, diagnostics: inout [Diagnostic], code: DiagnosticCode
) -> [VariableReference] {
    var references: [VariableReference] = []
    // No `{{` bytes, no placeholder (`{` is one byte and one scalar): most lines of a block.
    guard text.utf8Contains("{{") else { return references }
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index + 1 < scalars.count {
        guard scalars[index] == "{", scalars[index + 1] == "{" else { index += 1; continue }
        let start = index
        var end = index + 2
        while end + 1 < scalars.count, !(scalars[end] == "}" && scalars[end + 1] == "}") { end += 1 }
        guard end + 1 < scalars.count else {
            diagnostics.append(Diagnostic(code, severity: .error, location: location(start + 1),
                                          message: "placeholder '{{' is never closed", hint: "write `{{name}}`"))
            return references
        }
        var name = String(scalars: scalars[(start + 2)..<end])
        name = name.trimmingCharacters()
        if name.isEmpty || !name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "-") }) {
            diagnostics.append(Diagnostic(code, severity: .error, location: location(start + 1),
                                          message: "'{{\(name)}}' is not a valid placeholder",
                                          hint: "names use letters, digits, '_', '-' and '.', e.g. `{{provider.code}}`"))
        } else {
            references.append(VariableReference(name: name, location: location(start + 1)))
        }
        index = end + 2
    }
    return references
}

struct HTTPBlockParser {
    let block: CodeBlockContent

    func parse(diagnostics: inout [Diagnostic]) -> RequestTemplate? {
        if let template = parseASCII() { return template }
        return parseCharacters(diagnostics: &diagnostics)
    }

    /// The block read by Characters, with every diagnostic: the reference for `parseASCII`.
    func parseCharacters(diagnostics: inout [Diagnostic]) -> RequestTemplate? {
        let lines = block.lines
        var lineIndex = 0
        while lineIndex < lines.count, lines[lineIndex].trimmingCharacters().isEmpty { lineIndex += 1 }
        guard lineIndex < lines.count else {
            diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.fenceLocation,
                                          message: "the http block is empty",
                                          hint: "start with a request line such as `POST /api/v1/auth/apple/login`"))
            return nil
        }
        let requestLine = lines[lineIndex]
        let requestLineNumber = lineIndex + 1
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2, parts.count <= 3 else {
            diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.location(line: requestLineNumber, column: 1),
                                          message: "'\(requestLine)' is not a request line",
                                          hint: "write `METHOD /path`, e.g. `GET /users/my-profile`"))
            return nil
        }
        var valid = true
        if !Self.methods.contains(parts[0]) {
            diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.location(line: requestLineNumber, column: 1),
                                          message: "unknown HTTP method '\(parts[0])'",
                                          hint: "use one of \(Self.methods.sorted().joined(separator: ", ")) in capitals"))
            valid = false
        }
        let targetColumn = (Array(requestLine.unicodeScalars).firstIndex(of: " ").map { $0 + 1 } ?? 0) + 1
        let target = parts[1]
        if !target.hasPrefix("/") {
            diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.location(line: requestLineNumber, column: targetColumn),
                                          message: "request target '\(target)' must be a path starting with '/'",
                                          hint: "the host is the backend under test (`check --backend URL`); write only the path"))
            valid = false
        }
        if parts.count == 3, !parts[2].hasPrefix("HTTP/") {
            diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.location(line: requestLineNumber, column: 1),
                                          message: "unexpected '\(parts[2])' after the request target",
                                          hint: "a request line is `METHOD /path` or `METHOD /path HTTP/1.1`"))
            valid = false
        }
        var headers: [HeaderField] = []
        lineIndex += 1
        while lineIndex < lines.count, !lines[lineIndex].trimmingCharacters().isEmpty {
            let line = lines[lineIndex]
            if let colon = line.firstIndex(of: ":"), colon != line.startIndex,
               line[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                headers.append(HeaderField(name: String(line[..<colon]),
                                           value: String(line[line.index(after: colon)...]).trimmingCharacters()))
            } else {
                diagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: block.location(line: lineIndex + 1, column: 1),
                                              message: "'\(line)' is not a header line",
                                              hint: "headers are `Name: value`; leave a blank line before the body"))
                valid = false
            }
            lineIndex += 1
        }
        var body: String?
        if lineIndex < lines.count {
            let bodyLines = Array(lines[(lineIndex + 1)...])
            let joined = bodyLines.joined(separator: "\n").trimmingTrailingWhitespace()
            body = joined.isEmpty ? nil : joined
        }
        var references: [VariableReference] = []
        for (offset, line) in lines.enumerated() {
            references += scanPlaceholders(in: line, at: { block.location(line: offset + 1, column: $0) },
                                           diagnostics: &diagnostics, code: .malformedHTTP)
        }
        guard valid else { return nil }
        return RequestTemplate(method: parts[0], target: target, headers: headers, body: body,
                               references: references, location: block.fenceLocation)
    }
}

struct ExpectBlockParser {
    let block: CodeBlockContent

    private func location(_ mark: Mark?) -> SourceLocation {
        guard let mark else { return block.fenceLocation }
        return block.location(line: mark.line, column: mark.column)
    }

    private func error(_ message: String, at mark: Mark?, hint: String? = nil) -> Diagnostic {
        Diagnostic(.malformedExpect, severity: .error, location: location(mark), message: message, hint: hint)
    }

    func parse(diagnostics: inout [Diagnostic]) -> Expectation? {
        let node: Node?
        do {
            node = try PlainYAML.compose(block.literal) ?? Yams.compose(yaml: block.literal, .basic, .default, .utf8)
        } catch let yamlError as YamlError {
            let (mark, problem) = FrontMatterParser.describe(yamlError)
            diagnostics.append(error("YAML error in expect block: \(problem)", at: mark,
                                     hint: "an expect block is YAML with `status`, `headers`, `json`, `capture`"))
            return nil
        } catch {
            diagnostics.append(self.error("YAML error in expect block: \(error)", at: nil))
            return nil
        }
        guard let node else {
            diagnostics.append(error("the expect block is empty", at: nil, hint: "at least `status: 200`"))
            return nil
        }
        guard let mapping = node.mapping else {
            diagnostics.append(error("an expect block must be a mapping (`status: 200` …)", at: node.mark))
            return nil
        }
        var expectation = Expectation(location: block.fenceLocation)
        var ok = true
        for (keyNode, value) in mapping {
            let key = keyNode.scalar?.string ?? ""
            switch key {
            case "status":
                if let status = parseStatus(value, diagnostics: &diagnostics) { expectation.status = status } else { ok = false }
            case "headers":
                guard let headers = value.mapping else {
                    diagnostics.append(error("'headers' must map header names to values", at: value.mark)); ok = false; continue
                }
                for (nameNode, matcherNode) in headers {
                    guard let name = nameNode.scalar?.string,
                          let matcher = parseMatcher(matcherNode, diagnostics: &diagnostics) else { ok = false; continue }
                    expectation.headers.append(HeaderExpectation(name: name, matcher: matcher, location: location(nameNode.mark)))
                }
            case "json":
                guard let members = value.mapping else {
                    diagnostics.append(error("'json' must map JSONPaths to expected values", at: value.mark)); ok = false; continue
                }
                for (pathNode, matcherNode) in members {
                    let text = pathNode.scalar?.string ?? ""
                    guard let path = JSONPath(parsing: text) else {
                        diagnostics.append(error("'\(text)' is not a supported JSONPath", at: pathNode.mark,
                                                 hint: "use `$.name`, `$.a.b`, `$.items[0]` or `$['odd name']`"))
                        ok = false
                        continue
                    }
                    guard let matcher = parseMatcher(matcherNode, diagnostics: &diagnostics) else { ok = false; continue }
                    expectation.json.append(JSONAssertion(path: path, matcher: matcher, location: location(pathNode.mark)))
                }
            case "capture":
                if !parseCaptures(value, into: &expectation, diagnostics: &diagnostics) { ok = false }
            default:
                diagnostics.append(error("unknown key '\(key)' in expect block", at: keyNode.mark,
                                         hint: "expect blocks have `status`, `headers`, `json` and `capture`"))
                ok = false
            }
        }
        for (offset, line) in block.lines.enumerated() {
            expectation.references += scanPlaceholders(in: line, at: { block.location(line: offset + 1, column: $0) },
                                                       diagnostics: &diagnostics, code: .malformedExpect)
        }
        return ok ? expectation : nil
    }

    /// `capture:` names mapped to `$.path` or `header Name`; false when any is wrong.
    private func parseCaptures(_ value: Node, into expectation: inout Expectation, diagnostics: inout [Diagnostic]) -> Bool {
        var ok = true
        guard let members = value.mapping else {
            diagnostics.append(error("'capture' must map names to `$.path` or `header Name`", at: value.mark))
            return false
        }
        for (nameNode, sourceNode) in members {
            let name = nameNode.scalar?.string ?? ""
            let text = sourceNode.scalar?.string.trimmingCharacters() ?? ""
            if text.lowercased().hasPrefix("header ") {
                let header = String(text.dropFirst("header ".count)).trimmingCharacters()
                expectation.captures.append(Capture(name: name, source: .header(header), location: location(nameNode.mark)))
            } else if let path = JSONPath(parsing: text) {
                expectation.captures.append(Capture(name: name, source: .json(path), location: location(nameNode.mark)))
            } else {
                diagnostics.append(error("capture '\(name)' must be a JSONPath (`$.token`) or `header Name`", at: sourceNode.mark))
                ok = false
            }
        }
        return ok
    }

    private func parseStatus(_ node: Node, diagnostics: inout [Diagnostic]) -> StatusExpectation? {
        var status = StatusExpectation(location: location(node.mark))
        let items: [Node] = node.sequence.map(Array.init) ?? [node]
        for item in items {
            let text = item.scalar?.string.trimmingCharacters() ?? ""
            if let code = Int(text), (100...599).contains(code) {
                status.codes.append(code)
            } else if text.count == 3, text.lowercased().hasSuffix("xx"), let digit = Int(String(text.first!)), (1...5).contains(digit) {
                status.classes.append(digit)
            } else {
                diagnostics.append(error("'\(text)' is not an HTTP status", at: item.mark,
                                         hint: "write a code (`200`), a class (`4xx`) or a list (`[200, 201]`)"))
                return nil
            }
        }
        return status
    }

    private func parseMatcher(_ node: Node, diagnostics: inout [Diagnostic]) -> ValueMatcher? {
        if let mapping = node.mapping, mapping.count == 1, let key = mapping.first?.key.scalar?.string,
           ["type", "exists", "matches", "equals"].contains(key), let value = mapping.first?.value {
            switch key {
            case "type":
                guard let name = value.scalar?.string, let type = JSONType(rawValue: name) else {
                    diagnostics.append(error("unknown JSON type '\(value.scalar?.string ?? "")'", at: value.mark,
                                             hint: "types: \(JSONType.allCases.map(\.rawValue).joined(separator: ", "))"))
                    return nil
                }
                return .type(type)
            case "exists":
                guard let flag = value.typed.bool else {
                    diagnostics.append(error("`exists` takes true or false", at: value.mark)); return nil
                }
                return .exists(flag)
            case "matches":
                guard let pattern = value.scalar?.string else {
                    diagnostics.append(error("`matches` takes a regular expression", at: value.mark)); return nil
                }
                if !RegexValidity.isValid(pattern) {
                    diagnostics.append(error("'\(pattern)' is not a valid regular expression", at: value.mark)); return nil
                }
                return .matches(pattern)
            default:
                return .equals(jsonValue(value))
            }
        }
        return .equals(jsonValue(node))
    }
}

/// Converts a YAML node to JSON, resolving plain scalars (numbers, booleans, null) the YAML way
/// and keeping quoted scalars as strings.
func jsonValue(_ node: Node) -> JSONNode {
    let node = node.typed
    switch node {
    case .scalar(let scalar):
        if scalar.style == .plain {
            if node.null != nil, scalar.string.isEmpty || ["null", "~", "Null", "NULL"].contains(scalar.string) { return .null }
            if let bool = node.bool { return .bool(bool) }
            if let int = node.int { return .number(Double(int)) }
            if let double = node.float, scalar.string.contains(where: { $0.isNumber }) { return .number(double) }
        }
        return .string(scalar.string)
    case .sequence(let sequence):
        return .array(sequence.map(jsonValue))
    case .mapping(let mapping):
        var members: [String: JSONNode] = [:]
        for (key, value) in mapping {
            members[key.scalar?.string ?? ""] = jsonValue(value)
        }
        return .object(members)
    case .alias:
        return .null
    }
}

/// Whether a pattern compiles as a Swift `Regex`, remembered per pattern: compiling is costly and
/// the same few patterns recur in every spec of a corpus.
enum RegexValidity {
    private static let known = Locked<[String: Bool]>([:])

    static func isValid(_ pattern: String) -> Bool {
        if let cached = known.withLock({ $0[pattern] }) { return cached }
        let valid = (try? Regex(pattern)) != nil
        known.withLock { $0[pattern] = valid }
        return valid
    }
}

extension Node {
    /// This node with YAML's default (1.1) resolution of plain scalars (bool, int, float, null…).
    /// Specs are composed with the basic resolver, under which every scalar is a string: Yams
    /// hashes every mapping key to find duplicates, and with the default resolver each hash ran
    /// up to seven regular expressions (a tenth of a large build). Typed reads resolve here, on
    /// the few scalars that need it; explicitly tagged scalars (`!!str true`) keep their tag.
    public var typed: Node {
        guard case .scalar(let scalar) = self, scalar.tag.rawValue.isEmpty else { return self }
        return .scalar(Node.Scalar(scalar.string, Tag(.implicit, .default, .default), scalar.style, scalar.mark, scalar.anchor))
    }
}
