import FlowModel
/// The theme's Mustache templates, compiled once and rendered to bytes over a typed context.
///
/// Why not a general-purpose Mustache library: page rendering is the largest part of a site
/// build, and a renderer over `Any` pays a dynamic cast (often a protocol-conformance lookup) for
/// every name on every level of the context stack, plus Character-level escaping. Here the
/// context is a `TemplateValue` tree, lookups are dictionary reads, and output and escaping work
/// on UTF-8 bytes. The syntax and the whitespace rules (standalone lines, partial indentation,
/// template inheritance with `{{<parent}}` and `{{$block}}`) are those of the Mustache spec as
/// swift-mustache implements them; a test renders every page of `flows/` through both and
/// compares the bytes. Not supported (a theme using them gets a parse error with line:column):
/// set delimiters (`{{=<% %>=}}`), lambdas, transforms, dynamic partial names.

/// The named fields of a context object, in the order they were set.
///
/// Not a `Dictionary`: a page builds a few hundred small objects (up to 20-odd fields) and reads
/// most fields once, so hashing every key on insert and on lookup (SipHash, the storage's
/// allocation and probing) was most of the context's cost. Here a field is one entry of one
/// array: an 8-byte fingerprint of the key (its length and first bytes), the key and the value;
/// a lookup compares fingerprints, then the key on a match. A template's names carry their
/// fingerprints from compile time. Callgrind, 30 against 10 flows built: 0.9 M instructions less
/// per flow page, about 5 % of a build (docs/benchmarks.md).
public struct TemplateFields: Sendable, ExpressibleByDictionaryLiteral {
    struct Entry: Sendable {
        let fingerprint: UInt64
        let key: String
        var value: TemplateValue
    }

    /// One array, one allocation per object.
    private(set) var entries: [Entry] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self.init(elements)
    }

    /// The fields in order; a key given twice keeps its last value.
    init(_ elements: [(String, TemplateValue)]) {
        entries.reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// Length and the first 8 UTF-8 bytes of `key`, mixed into one word (equal keys, equal
    /// fingerprints; unequal keys rarely collide, and a collision only costs a comparison).
    @inline(__always)
    static func fingerprint(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { bytes in
            var word = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
            for index in 0..<min(8, bytes.count) { word ^= UInt64(bytes[index]) << UInt64(8 * index) }
            return word
        }
    }

    @inline(__always)
    private func index(of key: String, fingerprint: UInt64) -> Int? {
        entries.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where buffer[index].fingerprint == fingerprint && buffer[index].key == key {
                return index
            }
            return nil
        }
    }

    /// The field named `key`, whose fingerprint is known.
    @inline(__always)
    func value(_ key: String, fingerprint: UInt64) -> TemplateValue? {
        index(of: key, fingerprint: fingerprint).map { entries[$0].value }
    }

    public subscript(key: String) -> TemplateValue? {
        get { value(key, fingerprint: Self.fingerprint(key)) }
        set {
            let fingerprint = Self.fingerprint(key)
            if let at = index(of: key, fingerprint: fingerprint) {
                if let newValue { entries[at].value = newValue } else { entries.remove(at: at) }
            } else if let newValue {
                entries.append(Entry(fingerprint: fingerprint, key: key, value: newValue))
            }
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Sets every field of `other` here (its value wins where both have the key).
    mutating func merge(_ other: TemplateFields) {
        entries.reserveCapacity(entries.count + other.entries.count)
        for entry in other.entries { self[entry.key] = entry.value }
    }
}

/// A value in a template's context.
public enum TemplateValue: Sendable {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object(TemplateFields)
    /// A string table (UI labels) used as an object without converting every entry.
    case table([String: String])
    /// UTF-8 text as bytes (large fragments such as the index's cards, copied without a String).
    case bytes([UInt8])

    /// `.string(text)` when there is text, `false` otherwise (for `{{#x}}…{{/x}}` guards).
    static func optional(_ text: String?) -> TemplateValue {
        text.map(TemplateValue.string) ?? .bool(false)
    }

    /// The value as swift-mustache's context (`Any` tree), for comparing the two renderers.
    public var anyValue: Any {
        switch self {
        case .string(let text): return text
        case .bool(let flag): return flag
        case .list(let items): return items.map(\.anyValue)
        case .object(let fields): return Dictionary(fields.entries.map { ($0.key, $0.value.anyValue) }, uniquingKeysWith: { _, last in last })
        case .table(let table): return table
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    subscript(key: String) -> TemplateValue? {
        self[key, TemplateFields.fingerprint(key)]
    }

    /// The field `key` of an object or a table, with the key's fingerprint already known.
    subscript(key: String, fingerprint: UInt64) -> TemplateValue? {
        switch self {
        case .object(let fields): return fields.value(key, fingerprint: fingerprint)
        case .table(let table): return table[key].map(TemplateValue.string)
        default: return nil
        }
    }
}

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(TemplateFields(elements))
    }
}

/// A parse error in a template, with where it is.
public struct TemplateError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var line: Int
    public var column: Int
    public var description: String { "\(line):\(column): \(message)" }
}

/// One compiled template.
struct CompiledTemplate: Sendable {
    let nodes: [TemplateNode]

    init(_ text: String) throws {
        var parser = TemplateParser(Array(text.utf8))
        nodes = try parser.parseTopLevel()
    }
}

/// A name in a tag: `.` (the current value), `a.b.c` (searched up the context stack by its first
/// part), or `.a.b` (the current value only).
struct TemplatePath: Sendable {
    let names: [String]
    /// `TemplateFields.fingerprint` of each name.
    let fingerprints: [UInt64]
    let isCurrent: Bool
    let isAnchored: Bool

    init(_ text: String) {
        isCurrent = text == "."
        isAnchored = !isCurrent && text.hasPrefix(".")
        names = text.split(separator: ".").map(String.init)
        fingerprints = names.map(TemplateFields.fingerprint)
    }
}

indirect enum TemplateNode: Sendable {
    case text([UInt8])
    case variable(TemplatePath, escaped: Bool)
    case section(TemplatePath, [TemplateNode])
    case inverted(TemplatePath, [TemplateNode])
    /// `{{$name}}default{{/name}}` outside a parent: replaced by the inheriting template's block.
    case block(name: String, defaultNodes: [TemplateNode], indentation: [UInt8])
    /// `{{>name}}` (no overrides) or `{{<name}}…{{/name}}` (with its block overrides).
    case partial(name: String, indentation: [UInt8]?, overrides: [String: [TemplateNode]]?)
    /// A block definition inside `{{<parent}}`; collected into the partial's overrides.
    case blockDefinition(name: String, nodes: [TemplateNode])
}

/// Compiled templates by name, and the renderer.
struct TemplateLibrary: Sendable {
    private(set) var templates: [String: CompiledTemplate] = [:]

    mutating func register(_ template: CompiledTemplate, named name: String) {
        templates[name] = template
    }

    func contains(_ name: String) -> Bool { templates[name] != nil }

    /// Renders a template; an unknown name renders nothing. `capacity`: the bytes expected (a
    /// page that holds a large part, such as the index's cards, is not grown by doubling).
    func render(_ context: TemplateValue, template name: String, capacity: Int = 16 * 1024) -> [UInt8] {
        guard let template = templates[name] else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var state = RenderState(stack: [context], indentation: [], inherited: nil)
        render(template.nodes, &state, into: &out)
        return out
    }

    private struct RenderState {
        var stack: [TemplateValue]
        var indentation: [UInt8]
        var inherited: [String: [TemplateNode]]?
    }

    /// One template body. Inside an indented partial, a non-empty piece that starts after a newline
    /// of this body gets the indentation first.
    private func render(_ nodes: [TemplateNode], _ state: inout RenderState, into out: inout [UInt8]) {
        let start = out.count
        for node in nodes {
            let before = out.count
            render(node, &state, into: &out)
            if !state.indentation.isEmpty, out.count > before, before > start, out[before - 1] == 0x0A {
                out.insert(contentsOf: state.indentation, at: before)
            }
        }
    }

    private func render(_ node: TemplateNode, _ state: inout RenderState, into out: inout [UInt8]) {
        switch node {
        case .text(let bytes):
            out.append(contentsOf: bytes)
        case .variable(let path, let escaped):
            guard let value = lookup(path, state.stack) else { return }
            switch value {
            case .string(let text):
                if escaped { HTML.appendEscaped(text, to: &out) } else { out.append(contentsOf: text.utf8) }
            case .bool(let flag):
                out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .bytes(let bytes):
                if escaped { HTML.appendEscaped(String(decoding: bytes, as: UTF8.self), to: &out) } else { out.append(contentsOf: bytes) }
            case .list, .object, .table:
                break
            }
        case .section(let path, let nodes):
            guard let value = lookup(path, state.stack) else { return }
            switch value {
            case .list(let items):
                for item in items {
                    state.stack.append(item)
                    render(nodes, &state, into: &out)
                    state.stack.removeLast()
                }
            case .bool(let flag):
                if flag { render(nodes, &state, into: &out) }
            case .string, .object, .table, .bytes:
                state.stack.append(value)
                render(nodes, &state, into: &out)
                state.stack.removeLast()
            }
        case .inverted(let path, let nodes):
            let value = lookup(path, state.stack)
            switch value {
            case .none:
                render(nodes, &state, into: &out)
            case .list(let items)?:
                guard items.isEmpty else { return }
                state.stack.append(.list(items))
                render(nodes, &state, into: &out)
                state.stack.removeLast()
            case .bool(let flag)?:
                if !flag { render(nodes, &state, into: &out) }
            case .string?, .object?, .table?, .bytes?:
                break
            }
        case .block(let name, let defaultNodes, let indentation):
            let saved = state.indentation
            state.indentation += indentation
            render(state.inherited?[name] ?? defaultNodes, &state, into: &out)
            state.indentation = saved
        case .partial(let name, let indentation, let overrides):
            guard let template = templates[name] else { return }
            let savedIndentation = state.indentation
            let savedInherited = state.inherited
            if let indentation { state.indentation += indentation }
            if let overrides {
                // The outermost override of a block wins.
                state.inherited = (state.inherited ?? [:]).merging(overrides) { outer, _ in outer }
            }
            render(template.nodes, &state, into: &out)
            state.indentation = savedIndentation
            state.inherited = savedInherited
        case .blockDefinition:
            break
        }
    }

    private func lookup(_ path: TemplatePath, _ stack: [TemplateValue]) -> TemplateValue? {
        if path.isCurrent { return stack.last }
        guard let first = path.names.first else { return nil }
        let firstPrint = path.fingerprints[0]
        var value: TemplateValue
        if path.isAnchored {
            guard let top = stack.last, let found = top[first, firstPrint] else { return nil }
            value = found
        } else {
            var found: TemplateValue?
            for object in stack.reversed() {
                if let child = object[first, firstPrint] {
                    found = child
                    break
                }
            }
            guard let found else { return nil }
            value = found
        }
        var index = 1
        while index < path.names.count {
            guard let child = value[path.names[index], path.fingerprints[index]] else { return nil }
            value = child
            index += 1
        }
        return value
    }
}
