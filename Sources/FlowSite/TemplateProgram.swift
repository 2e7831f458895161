/// One compiled template: the parser's tree laid out flat, as operations (`TemplateOp`, numbers
/// only) over tables of bytes, names and paths. `TemplateLibrary` renders it by walking these
/// arrays through unsafe buffers: no operation, name or piece of text is reference-counted on the
/// way (walking `TemplateNode`s, an indirect enum, retained and released a box for every node of
/// every page).
final class CompiledTemplate: Sendable {
    let ops: [TemplateOp]
    /// The text of `.text` operations and the indentation of blocks and partials.
    let bytes: [UInt8]
    let paths: [TemplatePath.Flat]
    /// The names of the paths, one after the other.
    let components: [TemplatePath.Component]
    /// Partial, block and path names.
    let names: [String]
    /// The block overrides of each `{{<parent}}`: name → its operations.
    let overrides: [[String: Range<Int>]]

    convenience init(_ text: String) throws {
        var parser = TemplateParser(Array(text.utf8))
        let nodes = try parser.parseTopLevel()
        guard text.utf8.count < Int(Int32.max) else {
            throw TemplateError(message: "template is larger than 2 GB", line: 1, column: 1)
        }
        self.init(nodes: nodes)
    }

    init(nodes: [TemplateNode]) {
        var lowering = Lowering()
        lowering.lower(nodes)
        ops = lowering.ops
        bytes = lowering.bytes
        paths = lowering.paths
        components = lowering.components
        names = lowering.names
        overrides = lowering.overrides
    }

    /// The arrays as buffers, for one render of this template (the template outlives it).
    func withView<Result>(_ body: (TemplateView) -> Result) -> Result {
        ops.withUnsafeBufferPointer { ops in
            bytes.withUnsafeBufferPointer { bytes in
                paths.withUnsafeBufferPointer { paths in
                    components.withUnsafeBufferPointer { components in
                        names.withUnsafeBufferPointer { names in
                            body(TemplateView(template: self, ops: ops, bytes: bytes, paths: paths, components: components, names: names))
                        }
                    }
                }
            }
        }
    }
}

/// One operation of a compiled template. A body (of a section, an inverted section, a block's
/// default) is the operations that follow it, up to `end`.
struct TemplateOp: Sendable {
    enum Kind: UInt8, Sendable {
        /// `bytes[a ..< a + b]`.
        case text
        /// `{{path}}` and `{{{path}}}`: `a` is the path.
        case escaped, raw
        /// `{{#path}}` and `{{^path}}`: `a` is the path, the body runs to `end`.
        case section, inverted
        /// `{{$name}}default{{/name}}`: `a` is the name, `b`/`c` the indentation, the default body
        /// runs to `end`.
        case block
        /// `{{>name}}` or `{{<name}}…{{/name}}`: `a` is the name, `b`/`c` the indentation (`c` is
        /// -1 for none), `overrides` the block overrides (-1 for none), whose bodies run to `end`.
        case partial
    }

    var kind: Kind
    var a: Int32
    var b: Int32 = 0
    var c: Int32 = 0
    var overrides: Int32 = -1
    var end: Int32 = 0
}

extension TemplatePath {
    /// A path in a compiled template: its names are `components[first ..< first + count]`.
    struct Flat: Sendable {
        var first: Int32
        var count: Int32
        var isCurrent: Bool
        var isAnchored: Bool
    }

    /// One name of a path: its key, and the index of its text in `names`.
    struct Component: Sendable {
        var key: TemplateKey
        var name: Int32
    }
}

/// A compiled template's arrays, borrowed for one render.
struct TemplateView {
    unowned(unsafe) let template: CompiledTemplate
    let ops: UnsafeBufferPointer<TemplateOp>
    let bytes: UnsafeBufferPointer<UInt8>
    let paths: UnsafeBufferPointer<TemplatePath.Flat>
    let components: UnsafeBufferPointer<TemplatePath.Component>
    let names: UnsafeBufferPointer<String>

    func bytes(_ start: Int32, _ count: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(start + count)])
    }
}

/// Lays the parser's tree out as operations.
private struct Lowering {
    var ops: [TemplateOp] = []
    var bytes: [UInt8] = []
    var paths: [TemplatePath.Flat] = []
    var components: [TemplatePath.Component] = []
    var names: [String] = []
    var nameIndex: [String: Int32] = [:]
    var overrides: [[String: Range<Int>]] = []

    mutating func name(_ text: String) -> Int32 {
        if let index = nameIndex[text] { return index }
        names.append(text)
        nameIndex[text] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    mutating func append(_ text: [UInt8]) -> (start: Int32, count: Int32) {
        bytes.append(contentsOf: text)
        return (Int32(bytes.count - text.count), Int32(text.count))
    }

    mutating func path(_ path: TemplatePath) -> Int32 {
        let first = Int32(components.count)
        for text in path.names { components.append(.init(key: TemplateKey(text), name: name(text))) }
        paths.append(.init(first: first, count: Int32(path.names.count), isCurrent: path.isCurrent, isAnchored: path.isAnchored))
        return Int32(paths.count - 1)
    }

    /// Appends `op`, then what `body` lowers, and sets `op`'s end after them.
    mutating func withBody(_ op: TemplateOp, _ body: (inout Lowering) -> Void) {
        let at = ops.count
        ops.append(op)
        body(&self)
        ops[at].end = Int32(ops.count)
    }

    mutating func lower(_ nodes: [TemplateNode]) {
        for node in nodes {
            switch node {
            case .text(let text):
                let (start, count) = append(text)
                ops.append(TemplateOp(kind: .text, a: start, b: count))
            case .variable(let path, let escaped):
                ops.append(TemplateOp(kind: escaped ? .escaped : .raw, a: self.path(path)))
            case .section(let path, let body):
                withBody(TemplateOp(kind: .section, a: self.path(path))) { $0.lower(body) }
            case .inverted(let path, let body):
                withBody(TemplateOp(kind: .inverted, a: self.path(path))) { $0.lower(body) }
            case .block(let blockName, let defaultNodes, let indentation):
                let (start, count) = append(indentation)
                withBody(TemplateOp(kind: .block, a: name(blockName), b: start, c: count)) { $0.lower(defaultNodes) }
            case .partial(let partialName, let indentation, let blockOverrides):
                let (start, count) = indentation.map { append($0) } ?? (0, -1)
                var op = TemplateOp(kind: .partial, a: name(partialName), b: start, c: count)
                if blockOverrides != nil {
                    op.overrides = Int32(overrides.count)
                    overrides.append([:])
                }
                withBody(op) { lowering in
                    for (blockName, body) in (blockOverrides ?? [:]).sorted(by: { $0.key < $1.key }) {
                        let start = lowering.ops.count
                        lowering.lower(body)
                        lowering.overrides[Int(op.overrides)][blockName] = start..<lowering.ops.count
                    }
                }
            case .blockDefinition:
                break
            }
        }
    }
}
