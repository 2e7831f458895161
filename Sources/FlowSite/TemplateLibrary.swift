/// Compiled templates by name, and the renderer.
///
/// A render reads the context where it is: the context stack holds pointers to values inside the
/// context tree (the root, an object's field, a list's item), not copies of them, so looking a
/// name up and pushing a section's value retain nothing. The pointers are valid for the whole
/// render: the caller's context keeps every array of the tree alive and nothing changes it while
/// it renders.
struct TemplateLibrary: Sendable {
    private(set) var templates: [String: CompiledTemplate] = [:]

    mutating func register(_ template: CompiledTemplate, named name: String) {
        templates[name] = template
    }

    func contains(_ name: String) -> Bool { templates[name] != nil }

    /// Renders a template; an unknown name renders nothing. `capacity`: the bytes expected (a
    /// page that holds a large part, such as the index's cards, is not grown by doubling).
    func render(_ context: TemplateValue, template name: String, capacity: Int = 16 * 1024) -> [UInt8] {
        render(context, template: name, capacity: capacity) { Array($0) }
    }

    /// Renders a template and lends the bytes to `body` where they were written.
    func render<Result>(
        _ context: TemplateValue, template name: String, capacity: Int = 16 * 1024, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        var out = OutputBytes(capacity: capacity)
        if let template = templates[name] {
            withUnsafePointer(to: context) { root in
                var state = RenderState(stack: [root], indentation: [], inherited: nil)
                run(template, 0..<template.ops.count, &state, into: &out)
            }
        }
        return try out.withBytes(body)
    }

    /// Renders a template and hands the bytes to `sink` in pieces of about `pieceSize` bytes: a
    /// page that is mostly one large value written as it is (the index's cards, `.chunks`) is
    /// never held whole. Pieces are cut between the parts of such a value, outside any
    /// indentation; the sink's first error is rethrown once the page is rendered.
    func render(_ context: TemplateValue, template name: String, pieceSize: Int, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try withoutActuallyEscaping(sink) { sink in
            var out = OutputBytes(spillingTo: OutputBytes.Spill(threshold: pieceSize, sink: sink))
            if let template = templates[name] {
                withUnsafePointer(to: context) { root in
                    var state = RenderState(stack: [root], indentation: [], inherited: nil)
                    run(template, 0..<template.ops.count, &state, into: &out)
                }
            }
            try out.spillRest()
        }
    }

    /// An override's operations, in the template that defines it.
    private struct Body {
        let template: CompiledTemplate
        let range: Range<Int>
    }

    private struct RenderState {
        var stack: [UnsafePointer<TemplateValue>]
        var indentation: [UInt8]
        var inherited: [String: Body]?
    }

    private func run(_ template: CompiledTemplate, _ range: Range<Int>, _ state: inout RenderState, into out: inout OutputBytes) {
        template.withView { view in render(view, range, &state, into: &out) }
    }

    /// One body. Inside an indented partial, a non-empty piece that starts after a newline of this
    /// body gets the indentation first.
    private func render(_ view: TemplateView, _ range: Range<Int>, _ state: inout RenderState, into out: inout OutputBytes) {
        let start = out.count
        var index = range.lowerBound
        while index < range.upperBound {
            let before = out.count
            // Text is known to write something: its indentation goes first rather than being
            // inserted before it afterwards (moving the text).
            if view.ops[index].kind == .text, !state.indentation.isEmpty, view.ops[index].b > 0, before > start, out[before - 1] == 0x0A {
                out.append(contentsOf: state.indentation)
                out.append(contentsOf: view.bytes(view.ops[index].a, view.ops[index].b))
                index += 1
                continue
            }
            index = perform(view, at: index, &state, into: &out)
            if !state.indentation.isEmpty, out.count > before, before > start, out[before - 1] == 0x0A {
                out.insert(contentsOf: state.indentation, at: before)
            }
        }
    }

    /// Performs the operation at `index`; returns the index of the next one.
    private func perform(_ view: TemplateView, at index: Int, _ state: inout RenderState, into out: inout OutputBytes) -> Int {
        let op = view.ops[index]
        switch op.kind {
        case .text:
            out.append(contentsOf: view.bytes(op.a, op.b))
            return index + 1
        case .escaped, .raw:
            if let value = lookup(view, op.a, state.stack) {
                write(value, escaped: op.kind == .escaped, spilling: state.indentation.isEmpty, into: &out)
            }
            return index + 1
        case .section, .inverted, .block, .partial:
            return perform(view, body: index + 1..<Int(op.end), op, &state, into: &out)
        }
    }

    /// Performs an operation with a body; returns the index after the body.
    private func perform(_ view: TemplateView, body: Range<Int>, _ op: TemplateOp, _ state: inout RenderState, into out: inout OutputBytes) -> Int {
        switch op.kind {
        case .text, .escaped, .raw:
            break
        case .section:
            guard let value = lookup(view, op.a, state.stack) else { return body.upperBound }
            switch value.pointee {
            case .list(let items):
                let buffer = items.withUnsafeBufferPointer { $0 }
                for item in buffer.indices {
                    state.stack.append(buffer.baseAddress! + item)
                    render(view, body, &state, into: &out)
                    state.stack.removeLast()
                }
            case .bool(let flag):
                if flag { render(view, body, &state, into: &out) }
            case .string, .object, .table, .bytes, .chunks:
                state.stack.append(value)
                render(view, body, &state, into: &out)
                state.stack.removeLast()
            }
        case .inverted:
            guard let value = lookup(view, op.a, state.stack) else {
                render(view, body, &state, into: &out)
                return body.upperBound
            }
            switch value.pointee {
            case .list(let items):
                guard items.isEmpty else { break }
                state.stack.append(value)
                render(view, body, &state, into: &out)
                state.stack.removeLast()
            case .bool(let flag):
                if !flag { render(view, body, &state, into: &out) }
            case .string, .object, .table, .bytes, .chunks:
                break
            }
        case .block:
            let saved = state.indentation
            state.indentation.append(contentsOf: view.bytes(op.b, op.c))
            if let override = state.inherited?[view.names[Int(op.a)]] {
                run(override.template, override.range, &state, into: &out)
            } else {
                render(view, body, &state, into: &out)
            }
            state.indentation = saved
        case .partial:
            guard let template = templates[view.names[Int(op.a)]] else { return body.upperBound }
            let savedIndentation = state.indentation
            let savedInherited = state.inherited
            if op.c >= 0 { state.indentation.append(contentsOf: view.bytes(op.b, op.c)) }
            if op.overrides >= 0 {
                // The outermost override of a block wins.
                var inherited = state.inherited ?? [:]
                for (name, range) in view.template.overrides[Int(op.overrides)] where inherited[name] == nil {
                    inherited[name] = Body(template: view.template, range: range)
                }
                state.inherited = inherited
            }
            run(template, 0..<template.ops.count, &state, into: &out)
            state.indentation = savedIndentation
            state.inherited = savedInherited
        }
        return body.upperBound
    }

    /// `spilling`: the output may be handed on between the parts of a `.chunks` value (no
    /// indentation will be inserted before them).
    private func write(_ value: UnsafePointer<TemplateValue>, escaped: Bool, spilling: Bool, into out: inout OutputBytes) {
        switch value.pointee {
        case .string(let text):
            if escaped { HTML.appendEscaped(text, to: &out) } else { out.append(utf8: text) }
        case .bool(let flag):
            out.append(flag ? "true" : "false")
        case .bytes(let bytes):
            if escaped { HTML.appendEscaped(String(decoding: bytes, as: UTF8.self), to: &out) } else { out.append(contentsOf: bytes) }
        case .chunks(let chunks):
            if escaped {
                HTML.appendEscaped(String(decoding: chunks.joined(), as: UTF8.self), to: &out)
            } else {
                for chunk in chunks {
                    out.append(contentsOf: chunk)
                    if spilling { out.spillIfFull() }
                }
            }
        case .list, .object, .table:
            break
        }
    }

    private func lookup(_ view: TemplateView, _ pathIndex: Int32, _ stack: [UnsafePointer<TemplateValue>]) -> UnsafePointer<TemplateValue>? {
        let path = view.paths[Int(pathIndex)]
        if path.isCurrent { return stack.last }
        guard path.count > 0 else { return nil }
        let first = Int(path.first)
        var value: UnsafePointer<TemplateValue>
        if path.isAnchored {
            guard let top = stack.last, let found = child(of: top, view, first) else { return nil }
            value = found
        } else {
            var found: UnsafePointer<TemplateValue>?
            var level = stack.count - 1
            while level >= 0 {
                if let child = child(of: stack[level], view, first) {
                    found = child
                    break
                }
                level -= 1
            }
            guard let found else { return nil }
            value = found
        }
        for component in first + 1..<first + Int(path.count) {
            guard let child = child(of: value, view, component) else { return nil }
            value = child
        }
        return value
    }

    /// The field named by `components[component]` of an object or a table. The object's storage is
    /// taken before anything else is called, so the value is only read, never copied (a call the
    /// optimizer cannot see into, made while a payload is bound, makes it retain the payload).
    @inline(__always)
    private func child(of value: UnsafePointer<TemplateValue>, _ view: TemplateView, _ component: Int) -> UnsafePointer<TemplateValue>? {
        let name = view.components[component]
        switch value.pointee {
        case .object(let fields):
            let storage = fields.storage
            return TemplateFields.valuePointer(in: storage, name.key, name: name.name, of: view)
        case .table(let table):
            let table = Unmanaged.passUnretained(table)
            return table._withUnsafeGuaranteedRef { $0.valuePointer(view.names[Int(name.name)], key: name.key) }
        case .string, .bool, .list, .bytes, .chunks:
            return nil
        }
    }
}

extension TemplateFields {
    /// The entries' storage (see `TemplateLibrary`).
    @inline(__always)
    var storage: UnsafeBufferPointer<Entry> {
        entries.withUnsafeBufferPointer { $0 }
    }

    /// Where the value of the field is in an object's storage (see `TemplateLibrary`). `Entry`
    /// holds its value first, so an entry's address is its value's (a test checks the offset).
    @inline(__always)
    static func valuePointer(in entries: UnsafeBufferPointer<Entry>, _ key: TemplateKey, name: Int32, of view: TemplateView) -> UnsafePointer<TemplateValue>? {
        for index in entries.indices where entries[index].key == key && (key.isExact || entries[index].name == view.names[Int(name)]) {
            return UnsafeRawPointer(entries.baseAddress! + index).assumingMemoryBound(to: TemplateValue.self)
        }
        return nil
    }
}

extension TemplateTable {
    /// Where the value of `name` is in the table's storage (see `TemplateLibrary`).
    func valuePointer(_ name: String, key: TemplateKey) -> UnsafePointer<TemplateValue>? {
        guard let position = position(of: name, key: key) else { return nil }
        return values.withUnsafeBufferPointer { $0.baseAddress! + position }
    }
}
