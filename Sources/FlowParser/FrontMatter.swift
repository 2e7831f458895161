import FlowModel
import Yams

/// The YAML between the opening `---` and the closing `---` (or `...`) of a spec.
struct FrontMatterBlock {
    /// 1-based line of the opening `---`.
    let openingLine: Int
    /// 1-based line of the closing delimiter.
    let closingLine: Int
    let yaml: String

    /// First line of the Markdown body (after the closing delimiter).
    var bodyStartLine: Int { closingLine + 1 }
}

enum FrontMatterSplit {
    case found(FrontMatterBlock)
    /// No front matter at all: the file does not start with `---`.
    case missing(looksLegacy: Bool)
    /// An opening `---` without a closing one.
    case unterminated(openingLine: Int)
}

extension SourceText {
    func splitFrontMatter() -> FrontMatterSplit {
        // Leading blank lines are tolerated; a UTF-8 BOM too.
        var line = 1
        while line <= lineCount, lineText(line).trimmingCharacters().isEmpty { line += 1 }
        guard line <= lineCount else { return .missing(looksLegacy: false) }
        var first = lineText(line)
        if first.hasPrefix("\u{FEFF}") { first.removeFirst() }
        guard first.trimmingTrailingWhitespace() == "---" else {
            let legacy = first.hasPrefix("```yaml") || first.hasPrefix("```yml")
            return .missing(looksLegacy: legacy)
        }
        var closing = line + 1
        while closing <= lineCount {
            let delimiter = lineText(closing).trimmingTrailingWhitespace()
            if delimiter == "---" || delimiter == "..." {
                let yaml = closing > line + 1 ? text(lines: line + 1, closing - 1) : ""
                return .found(FrontMatterBlock(openingLine: line, closingLine: closing, yaml: yaml))
            }
            closing += 1
        }
        return .unterminated(openingLine: line)
    }
}

/// Typed front matter with the location of everything, or diagnostics.
struct FrontMatter {
    var id: String?
    var title: String?
    var summary: String?
    var lang: String?
    var translationOf: String?
    var tags: [String] = []
    var environments: [String] = []
    var provider: String?
    var nonce: NonceTransform?
    var openapi: String?
    var actors: [Actor] = []
    var variables: [Variable] = []
    var keyLocations: [String: SourceLocation] = [:]

    static let knownKeys: [String] = [
        "id", "title", "summary", "lang", "translation-of", "tags", "environments", "provider", "nonce", "openapi", "actors", "variables",
    ]
    static let requiredKeys: [String] = ["id", "title", "actors"]
}

package struct FrontMatterParser {
    let source: SourceText
    let block: FrontMatterBlock
    var diagnostics: [Diagnostic] = []

    init(source: SourceText, block: FrontMatterBlock) {
        self.source = source
        self.block = block
    }

    /// Front matter line `n` (1-based within the YAML) is file line `openingLine + n`.
    private func location(_ mark: Mark?) -> SourceLocation {
        guard let mark else { return source.location(line: block.openingLine, column: 1) }
        return source.location(line: block.openingLine + mark.line, column: mark.column)
    }

    private mutating func report(
        _ code: DiagnosticCode, _ severity: Severity = .error, at location: SourceLocation, _ message: String, hint: String? = nil
    ) {
        diagnostics.append(Diagnostic(code, severity: severity, location: location, message: message, hint: hint))
    }

    mutating func parse() -> FrontMatter? {
        let opening = source.location(line: block.openingLine, column: 1)
        guard let node = compose() else { return nil }
        guard let mapping = node.mapping else {
            report(.wrongType, at: location(node.mark), "front matter must be a mapping of keys to values, not a \(Self.kind(of: node))")
            return nil
        }
        var result = FrontMatter()
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                report(.wrongType, at: location(keyNode.mark), "front matter keys must be plain words")
                continue
            }
            let keyLocation = location(keyNode.mark)
            result.keyLocations[key] = keyLocation
            read(key, value, at: keyLocation, into: &result)
        }
        for key in FrontMatter.requiredKeys where result.keyLocations[key] == nil {
            report(.missingKey, at: opening, "front matter has no '\(key)'", hint: Self.requiredHint[key])
        }
        return result
    }

    /// The YAML tree of the block, within the size and nesting bounds; nil (with a diagnostic)
    /// when it is too large, too deep, not YAML or empty.
    private mutating func compose() -> Node? {
        let opening = source.location(line: block.openingLine, column: 1)
        if block.yaml.utf8.count > 1_000_000 {
            report(.frontMatterYAML, at: opening, "front matter is larger than 1 MB", hint: "front matter holds metadata; move prose into the Markdown body")
            return nil
        }
        let nesting = maximumNesting(of: block.yaml)
        if nesting.depth > 64 {
            report(.frontMatterYAML, at: source.location(line: block.openingLine + nesting.line, column: 1),
                   "front matter nests deeper than 64 levels", hint: "flow metadata needs at most 3 levels")
            return nil
        }
        let node: Node?
        do {
            node = try PlainYAML.compose(block.yaml) ?? Yams.compose(yaml: block.yaml, .basic, .default, .utf8)
        } catch let error as YamlError {
            let (mark, problem) = Self.describe(error)
            var at = location(mark)
            if case .duplicatedKeysInMapping(let keys, _) = error, let key = keys.sorted().first,
                let line = Self.secondOccurrence(of: key, in: block.yaml)
            {
                at = source.location(line: block.openingLine + line, column: 1)
            }
            report(.frontMatterYAML, at: at, "YAML error in front matter: \(problem)",
                   hint: "front matter is YAML between two `---` lines; check indentation and quoting")
            return nil
        } catch {
            report(.frontMatterYAML, at: opening, "YAML error in front matter: \(error)")
            return nil
        }
        guard let node else {
            report(.frontMatterMissing, at: opening, "front matter is empty", hint: "add at least `id`, `title` and `actors`")
            return nil
        }
        return node
    }

    /// One key of the mapping, checked and stored.
    private mutating func read(_ key: String, _ value: Node, at keyLocation: SourceLocation, into result: inout FrontMatter) {
        switch key {
        case "id":
            result.id = string(value, key: key)
            if let id = result.id, !Self.isValidID(id) {
                report(.invalidFlowID, at: location(value.mark), "flow id '\(id)' is not valid",
                       hint: "use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit")
            }
        case "title": result.title = string(value, key: key)
        case "summary": result.summary = string(value, key: key)
        case "lang":
            result.lang = string(value, key: key)
            if let lang = result.lang, !Self.isLanguageTag(lang) {
                report(.wrongType, at: location(value.mark), "lang '\(lang)' is not a language tag",
                       hint: "use a BCP 47 tag such as en, vi, tr or pt-BR")
                result.lang = nil
            }
        case "translation-of": result.translationOf = string(value, key: key)
        case "provider": result.provider = string(value, key: key)
        case "openapi": result.openapi = string(value, key: key)
        case "nonce":
            if let text = string(value, key: key) {
                if let transform = NonceTransform(rawValue: text) {
                    result.nonce = transform
                } else {
                    report(.wrongType, at: location(value.mark), "'nonce' must be one of \(NonceTransform.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'",
                           hint: "`verbatim`: the claim is the nonce the client sent; `sha256`: the client posts a raw nonce whose SHA-256 (hex) it sent to the provider")
                }
            }
        case "tags": result.tags = stringList(value, key: key)
        case "environments": result.environments = stringList(value, key: key)
        case "actors": result.actors = actors(value)
        case "variables": result.variables = variables(value)
        default:
            let suggestion = Self.closest(to: key, in: FrontMatter.knownKeys)
            report(.unknownKey, .warning, at: keyLocation, "unknown front matter key '\(key)'",
                   hint: suggestion.map { "did you mean '\($0)'?" } ?? "known keys: \(FrontMatter.knownKeys.joined(separator: ", "))")
        }
    }

    private static let requiredHint: [String: String] = [
        "id": "add `id: my-flow` (a stable id used in URLs and reports)",
        "title": "add `title: …`, the page and report title",
        "actors": "declare the participants: `actors: { app: { name: App, role: client } }`",
    ]

    private mutating func string(_ node: Node, key: String) -> String? {
        if let scalar = node.scalar { return scalar.string }
        report(.wrongType, at: location(node.mark), "'\(key)' must be text, not a \(Self.kind(of: node))")
        return nil
    }

    private mutating func stringList(_ node: Node, key: String) -> [String] {
        if let scalar = node.scalar {
            return scalar.string.isEmpty ? [] : [scalar.string]
        }
        guard let sequence = node.sequence else {
            report(.wrongType, at: location(node.mark), "'\(key)' must be a list of words, not a \(Self.kind(of: node))")
            return []
        }
        var values: [String] = []
        for item in sequence {
            if let scalar = item.scalar {
                values.append(scalar.string)
            } else {
                report(.wrongType, at: location(item.mark), "items of '\(key)' must be text, not a \(Self.kind(of: item))")
            }
        }
        return values
    }

    private mutating func actors(_ node: Node) -> [Actor] {
        guard let mapping = node.mapping else {
            report(.wrongType, at: location(node.mark), "'actors' must map actor ids to `{ name, role }`, not a \(Self.kind(of: node))")
            return []
        }
        var actors: [Actor] = []
        for (keyNode, value) in mapping {
            guard let id = keyNode.scalar?.string, !id.isEmpty else {
                report(.wrongType, at: location(keyNode.mark), "actor ids must be plain words")
                continue
            }
            let at = location(keyNode.mark)
            if !Self.isValidActorID(id) {
                report(.invalidActor, at: at, "actor id '\(id)' cannot be used in an actors line",
                       hint: "use letters, digits, '_', '-' and '.' only")
            }
            var name = id
            var role: ActorRole?
            if let fields = value.mapping {
                var hasRole = false
                for (fieldKey, fieldValue) in fields {
                    let field = fieldKey.scalar?.string ?? ""
                    switch field {
                    case "name":
                        if let text = fieldValue.scalar?.string { name = text } else {
                            report(.wrongType, at: location(fieldValue.mark), "actor name must be text")
                        }
                    case "role":
                        hasRole = true
                        let spelled = fieldValue.scalar?.string ?? ""
                        role = ActorRole(spelling: spelled)
                        if role == nil {
                            report(.invalidActor, at: location(fieldValue.mark), "unknown role '\(spelled)' for actor '\(id)'",
                                   hint: "roles: person, client, provider, backend")
                        }
                    default:
                        report(.unknownKey, .warning, at: location(fieldKey.mark), "unknown actor field '\(field)'",
                               hint: "actors have `name` and `role`")
                    }
                }
                if !hasRole {
                    report(.invalidActor, at: at, "actor '\(id)' has no role", hint: "add `role: person|client|provider|backend`")
                }
            } else {
                report(.wrongType, at: location(value.mark), "actor '\(id)' must be `{ name: …, role: … }`")
            }
            actors.append(Actor(id: id, name: name, role: role ?? .client, location: at))
        }
        return actors
    }

    private mutating func variables(_ node: Node) -> [Variable] {
        guard let mapping = node.mapping else {
            report(.wrongType, at: location(node.mark), "'variables' must map names to values, not a \(Self.kind(of: node))")
            return []
        }
        var variables: [Variable] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string else { continue }
            guard let scalar = value.scalar else {
                report(.wrongType, at: location(value.mark), "variable '\(name)' must be a single value")
                continue
            }
            variables.append(Variable(name: name, value: scalar.string, location: location(keyNode.mark)))
        }
        return variables
    }

    static func isValidID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, first.isASCIILowercaseOrDigit else { return false }
        return id.unicodeScalars.allSatisfy { $0.isASCIILowercaseOrDigit || $0 == "-" || $0 == "_" || $0 == "." }
    }

    /// ASCII letters and digits, `-`, `_` and `.`: every byte one of those (a byte past ASCII
    /// belongs to a scalar that is none of them).
    static func isValidActorID(_ id: String) -> Bool {
        id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
            default: false
            }
        }
    }

    static func kind(of node: Node) -> String {
        switch node {
        case .scalar: "single value"
        case .mapping: "mapping"
        case .sequence: "list"
        case .alias: "alias"
        }
    }

    /// A BCP 47 language tag in the simple form specs use: a 2–3 letter language, then
    /// subtags of 1–8 letters or digits (`en`, `vi`, `tr-TR`, `zh-Hant-TW`).
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// The 1-based line (within the YAML) of the second `key:` line at the same indentation.
    static func secondOccurrence(of key: String, in yaml: String) -> Int? {
        var seen: [Int: Int] = [:]
        for (index, line) in yaml.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indentation = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indentation)
            guard rest.hasPrefix(key), rest.dropFirst(key.count).drop(while: { $0 == " " }).first == ":" else { continue }
            seen[indentation, default: 0] += 1
            if seen[indentation] == 2 { return index + 1 }
        }
        return nil
    }

    package static func describe(_ error: YamlError) -> (Mark?, String) {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let prefix = context.map { "\($0.text) " } ?? ""
            return (mark, prefix + problem)
        case let .duplicatedKeysInMapping(duplicates, context):
            // Name the keys, never paste the mapping (the caller points at the second one).
            return (context.mark, "duplicate key " + duplicates.sorted().map { "'\($0)'" }.joined(separator: ", "))
        case let .reader(problem, _, _, _):
            return (nil, problem)
        default:
            return (nil, "\(error)")
        }
    }

    /// A known word within edit distance 2 of `word`, for "did you mean" hints.
    static func closest(to word: String, in candidates: [String]) -> String? {
        Suggestion.closest(to: word, among: candidates)
    }
}


extension Unicode.Scalar {
    var isASCIILowercaseOrDigit: Bool { ("a"..."z").contains(self) || ("0"..."9").contains(self) }
}
