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

/// The key of a field: its UTF-8 length and first 15 bytes in two words. Keys of up to 15 bytes
/// (nearly every key a template names) are equal exactly when their words are; longer keys are
/// compared as Strings after their words match.
struct TemplateKey: Equatable, Sendable {
    let low: UInt64
    let high: UInt64

    @inline(__always)
    init(_ key: String) {
        var key = key
        (low, high) = key.withUTF8 { bytes in
            var low: UInt64 = 0
            var high = UInt64(min(bytes.count, 255)) << 56
            for index in 0..<min(8, bytes.count) { low |= UInt64(bytes[index]) << UInt64(8 * index) }
            if bytes.count > 8 {
                for index in 8..<min(15, bytes.count) { high |= UInt64(bytes[index]) << UInt64(8 * (index - 8)) }
            }
            return (low, high)
        }
    }

    /// True when equal words mean equal keys (15 bytes or fewer).
    var isExact: Bool { high >> 56 <= 15 }
}

/// The named fields of a context object, in the order they were set.
///
/// Not a `Dictionary`: a page builds a few hundred small objects (up to 20-odd fields) and reads
/// most fields once, so hashing every key on insert and on lookup (SipHash, the storage's
/// allocation and probing) was most of the context's cost. Here a field is one entry of one
/// array: the key's `TemplateKey`, the key and the value; a lookup compares the two words, and
/// the key itself only when it is longer than 15 bytes. A template's names carry their keys from
/// compile time. Callgrind, 30 against 10 flows built: 0.9 M instructions less per flow page,
/// about 5 % of a build (docs/benchmarks.md).
public struct TemplateFields: Sendable, ExpressibleByDictionaryLiteral {
    /// The value first: its address is the entry's (`TemplateLibrary` reads it in place; Swift
    /// lays a struct's stored properties out in declaration order).
    struct Entry: Sendable {
        var value: TemplateValue
        let key: TemplateKey
        let name: String
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

    @inline(__always)
    private func index(of name: String, key: TemplateKey) -> Int? {
        entries.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where buffer[index].key == key && (key.isExact || buffer[index].name == name) {
                return index
            }
            return nil
        }
    }

    public subscript(name: String) -> TemplateValue? {
        get { index(of: name, key: TemplateKey(name)).map { entries[$0].value } }
        set {
            let key = TemplateKey(name)
            if let at = index(of: name, key: key) {
                if let newValue { entries[at].value = newValue } else { entries.remove(at: at) }
            } else if let newValue {
                entries.append(Entry(value: newValue, key: key, name: name))
            }
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Sets every field of `other` here (its value wins where both have the key).
    mutating func merge(_ other: TemplateFields) {
        entries.reserveCapacity(entries.count + other.entries.count)
        for entry in other.entries { self[entry.name] = entry.value }
    }
}

/// A string table (UI labels) as a context object, built once per language rather than
/// converted for every page. Its names are sorted by their `TemplateKey`, which a template's
/// names carry from compile time, so a lookup is a binary search over pairs of words: hashing
/// the name as a String (a page looks up a few hundred, most of them misses on the way up the
/// context stack) was 11 M instructions of a 200-flow build.
public final class TemplateTable: Sendable {
    let keys: [TemplateKey]
    let names: [String]
    let values: [TemplateValue]
    let strings: [String: String]

    public init(_ strings: [String: String]) {
        self.strings = strings
        let sorted = strings.keys.map { (key: TemplateKey($0), name: $0) }.sorted { ($0.key, $0.name) < ($1.key, $1.name) }
        keys = sorted.map(\.key)
        names = sorted.map(\.name)
        values = sorted.map { .string(strings[$0.name]!) }
    }

    /// The position of `name` (whose key is `key`), if the table has it.
    @inline(__always)
    func position(of name: String, key: TemplateKey) -> Int? {
        keys.withUnsafeBufferPointer { keys in
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            while low < keys.count, keys[low] == key {
                if key.isExact || names[low] == name { return low }
                low += 1
            }
            return nil
        }
    }
}

extension TemplateKey: Comparable {
    static func < (lhs: TemplateKey, rhs: TemplateKey) -> Bool {
        (lhs.low, lhs.high) < (rhs.low, rhs.high)
    }
}

/// A value in a template's context.
public enum TemplateValue: Sendable {
    case string(String)
    case bool(Bool)
    case list([TemplateValue])
    case object(TemplateFields)
    /// A string table (UI labels) used as an object.
    case table(TemplateTable)
    /// UTF-8 text as bytes (large fragments such as the index's cards, copied without a String).
    case bytes([UInt8])
    /// UTF-8 text in pieces, written one after the other: the index's 2 000 cards go into the
    /// page as they are, without being joined into one 1.7 MB array first.
    case chunks([[UInt8]])

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
        case .object(let fields): return Dictionary(fields.entries.map { ($0.name, $0.value.anyValue) }, uniquingKeysWith: { _, last in last })
        case .table(let table): return table.strings
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .chunks(let chunks): return String(decoding: chunks.joined(), as: UTF8.self)
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

/// A name in a tag: `.` (the current value), `a.b.c` (searched up the context stack by its first
/// part), or `.a.b` (the current value only).
struct TemplatePath: Sendable {
    let names: [String]
    let isCurrent: Bool
    let isAnchored: Bool

    init(_ text: String) {
        isCurrent = text == "."
        isAnchored = !isCurrent && text.hasPrefix(".")
        names = text.split(separator: ".").map(String.init)
    }
}

/// A template as the parser reads it; `TemplateProgram` is what renders.
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
