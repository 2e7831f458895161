import FlowModel

/// Mustache parser over UTF-8 bytes. Follows swift-mustache's parser step for step (standalone
/// detection, the whitespace kept before tags, block indentation inside parents) so both give the
/// same bytes for the same template.
struct TemplateParser {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private struct State {
        var sectionName: String?
        var newLine = true
        var isPartialDefinition = false
        var isPartialDefinitionTopLevel = false
        var partialDefinitionIndent: [UInt8]?

        func withSectionName(_ name: String, newLine: Bool) -> State {
            var copy = self
            copy.sectionName = name
            copy.isPartialDefinitionTopLevel = false
            if !newLine { copy.newLine = false }
            return copy
        }

        func withInheritancePartial(_ name: String) -> State {
            var copy = self
            copy.sectionName = name
            copy.newLine = true
            copy.isPartialDefinition = true
            copy.isPartialDefinitionTopLevel = true
            return copy
        }
    }

    mutating func parseTopLevel() throws -> [TemplateNode] {
        try parse(State())
    }

    // MARK: Scanning

    private var atEnd: Bool { position >= bytes.count }
    private var current: UInt8 { position < bytes.count ? bytes[position] : 0 }

    /// Length of the newline at `position` (`\n` or `\r\n`), 0 when there is none.
    private var newlineLength: Int {
        guard position < bytes.count else { return 0 }
        if bytes[position] == 0x0A { return 1 }
        if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { return 2 }
        return 0
    }

    private mutating func readSpacesAndTabs() -> [UInt8] {
        let start = position
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        return Array(bytes[start..<position])
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func read(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[position + $0] == expected[$0] }
        }
        if matches { position += count }
        return matches
    }

    private func error(_ message: String, at offset: Int? = nil) -> TemplateError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).unicodeScalars.count + 1
        return TemplateError(message: message, line: line, column: column)
    }

    /// Text up to a newline or a `{{` (which is consumed).
    private mutating func readUntilTagOrNewline() -> [UInt8] {
        var text: [UInt8] = []
        while !atEnd {
            let start = position
            while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x7B,
                  !(bytes[position] == 0x0D && position + 1 < bytes.count && bytes[position + 1] == 0x0A) {
                position += 1
            }
            text.append(contentsOf: bytes[start..<position])
            if atEnd || newlineLength > 0 { break }
            // A `{`: a tag when doubled, text otherwise.
            if read("{{") { break }
            text.append(0x7B)
            position += 1
        }
        return text
    }

    private static let nameCharacters: Set<UInt8> = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*".utf8)
    private static let partialNameCharacters: Set<UInt8> = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*/".utf8)

    private mutating func parseName() throws -> String {
        skipWhitespace()
        let start = position
        while position < bytes.count, Self.nameCharacters.contains(bytes[position]) { position += 1 }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        skipWhitespace()
        if current == 0x28 { throw error("transforms such as `name(…)` are not supported") }
        guard read("}}") else { throw error("unfinished tag: expected `}}` after a name") }
        guard !name.isEmpty else { throw error("a tag needs a name", at: start) }
        return name
    }

    private mutating func parsePartialName() throws -> String {
        skipWhitespace()
        if current == 0x2A { throw error("dynamic partial names (`*name`) are not supported") }
        let start = position
        while position < bytes.count, Self.partialNameCharacters.contains(bytes[position]) { position += 1 }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        skipWhitespace()
        guard read("}}") else { throw error("unfinished tag: expected `}}` after a partial name") }
        guard !name.isEmpty else { throw error("a partial tag needs a name", at: start) }
        return name
    }

    /// The rest of the line is blank: consume it and its newline.
    private mutating func hasLineFinished() -> Bool {
        if atEnd { return true }
        let saved = position
        _ = readSpacesAndTabs()
        let length = newlineLength
        if length > 0 {
            position += length
            return true
        }
        position = saved
        return false
    }

    private mutating func isStandalone(_ state: State) -> Bool {
        state.newLine && hasLineFinished()
    }

    // MARK: Parsing

    /// `{{<parent}}…{{/parent}}`: a partial whose `{{$block}}`s are overridden.
    private mutating func parseParent(state: State, tagStart: Int, nodes: inout [TemplateNode], whiteSpaceBefore: inout [UInt8]) throws -> Bool {
        var setNewLine = false
        position += 1
        let name = try parsePartialName()
        if !whiteSpaceBefore.isEmpty { nodes.append(.text(whiteSpaceBefore)) }
        if isStandalone(state) { setNewLine = true }
        let body = try parse(state.withInheritancePartial(name))
        var overrides: [String: [TemplateNode]] = [:]
        for node in body {
            switch node {
            case .blockDefinition(let block, let nodes): overrides[block] = nodes
            case .text: break
            default: throw error("only `{{$block}}` definitions may stand inside `{{<\(name)}}`", at: tagStart)
            }
        }
        nodes.append(.partial(name: name, indentation: whiteSpaceBefore, overrides: overrides))
        whiteSpaceBefore = []
        return setNewLine
    }

    /// `{{$block}}…{{/block}}`: a block definition inside a parent, or a block with default
    /// content.
    private mutating func parseBlock(state: State, nodes: inout [TemplateNode], whiteSpaceBefore: inout [UInt8]) throws -> Bool {
        var setNewLine = false
        position += 1
        let name = try parseName()
        if state.isPartialDefinitionTopLevel {
            if isStandalone(state) { setNewLine = true }
            let body = try parse(state.withSectionName(name, newLine: setNewLine))
            nodes.append(.blockDefinition(name: name, nodes: body))
        } else {
            if !whiteSpaceBefore.isEmpty { nodes.append(.text(whiteSpaceBefore)) }
            if isStandalone(state) { setNewLine = true }
            let body = try parse(state.withSectionName(name, newLine: setNewLine))
            nodes.append(.block(name: name, defaultNodes: body, indentation: whiteSpaceBefore))
            whiteSpaceBefore = []
        }
        return setNewLine
    }

    /// `{{! … }}`: skipped up to its `}}`.
    private mutating func skipComment(from tagStart: Int) throws {
        position += 1
        while !atEnd {
            if read("}}") { return }
            position += 1
        }
        throw error("unfinished comment", at: tagStart)
    }

    /// What reading one tag did: closed the open section, or added nodes.
    private enum TagOutcome {
        case closed
        /// `newLine`: the tag stood alone on its line, which counts as the start of a new one.
        case parsed(newLine: Bool)
    }

    /// One tag after its `{{`: sections, closings, comments, variables, partials, parents and
    /// blocks.
    private mutating func parseTag(state: State, nodes: inout [TemplateNode], whiteSpaceBefore: inout [UInt8]) throws -> TagOutcome {
        let tagStart = position - 2
        var setNewLine = false
        switch current {
        case 0x23, 0x5E:  // # ^
            let inverted = current == 0x5E
            position += 1
            let name = try parseName()
            if isStandalone(state) {
                setNewLine = true
            } else if !whiteSpaceBefore.isEmpty {
                nodes.append(.text(whiteSpaceBefore))
                whiteSpaceBefore = []
            }
            let body = try parse(state.withSectionName(name, newLine: setNewLine))
            nodes.append(inverted ? .inverted(TemplatePath(name), body) : .section(TemplatePath(name), body))

        case 0x2F:  // /
            position += 1
            let nameStart = position
            let name = try parseName()
            guard name == state.sectionName else {
                throw error(state.sectionName.map { "`{{/\(name)}}` closes `\($0)`, which is not open here" } ?? "`{{/\(name)}}` closes nothing", at: nameStart)
            }
            // (The caller's newline state comes from the opening tag, as in swift-mustache.)
            if !isStandalone(state), !whiteSpaceBefore.isEmpty {
                nodes.append(.text(whiteSpaceBefore))
            }
            return .closed

        case 0x21:  // ! comment
            try skipComment(from: tagStart)
            setNewLine = isStandalone(state)

        case 0x7B, 0x26:  // { &
            let triple = current == 0x7B
            if !whiteSpaceBefore.isEmpty {
                nodes.append(.text(whiteSpaceBefore))
                whiteSpaceBefore = []
            }
            position += 1
            let name = try parseName()
            if triple, !read("}") { throw error("unfinished tag: expected `}}}`") }
            nodes.append(.variable(TemplatePath(name), escaped: false))

        case 0x3E:  // > partial
            position += 1
            let name = try parsePartialName()
            if !whiteSpaceBefore.isEmpty { nodes.append(.text(whiteSpaceBefore)) }
            if isStandalone(state) {
                setNewLine = true
                nodes.append(.partial(name: name, indentation: whiteSpaceBefore, overrides: nil))
            } else {
                nodes.append(.partial(name: name, indentation: nil, overrides: nil))
            }
            whiteSpaceBefore = []

        case 0x3C:  // < parent
            setNewLine = try parseParent(state: state, tagStart: tagStart, nodes: &nodes, whiteSpaceBefore: &whiteSpaceBefore)

        case 0x24:  // $ block
            setNewLine = try parseBlock(state: state, nodes: &nodes, whiteSpaceBefore: &whiteSpaceBefore)

        case 0x3D:
            throw error("set delimiters (`{{=…=}}`) are not supported", at: tagStart)
        case 0x25:
            throw error("configuration tags (`{{%…}}`) are not supported", at: tagStart)

        default:
            if !whiteSpaceBefore.isEmpty {
                nodes.append(.text(whiteSpaceBefore))
                whiteSpaceBefore = []
            }
            let name = try parseName()
            nodes.append(.variable(TemplatePath(name), escaped: true))
        }
        return .parsed(newLine: setNewLine)
    }

    private mutating func parse(_ initial: State) throws -> [TemplateNode] {
        var nodes: [TemplateNode] = []
        var state = initial
        var whiteSpaceBefore: [UInt8] = []
        while !atEnd {
            if state.newLine {
                let whiteSpace = readSpacesAndTabs()
                if state.isPartialDefinition, !state.isPartialDefinitionTopLevel {
                    if let indent = state.partialDefinitionIndent {
                        whiteSpaceBefore = Array(whiteSpace.dropFirst(indent.count))
                    } else {
                        state.partialDefinitionIndent = whiteSpace
                    }
                } else {
                    whiteSpaceBefore = whiteSpace
                }
            }
            let text = readUntilTagOrNewline()
            let newline = newlineLength
            if newline > 0 {
                nodes.append(.text(whiteSpaceBefore + text + bytes[position..<(position + newline)]))
                state.newLine = true
                position += newline
                continue
            }
            if !text.isEmpty {
                nodes.append(.text(whiteSpaceBefore + text))
                whiteSpaceBefore = []
                state.newLine = false
            }
            if atEnd { break }
            switch try parseTag(state: state, nodes: &nodes, whiteSpaceBefore: &whiteSpaceBefore) {
            case .closed: return nodes
            case .parsed(let newLine): state.newLine = newLine
            }
        }
        if let open = state.sectionName {
            throw error("`{{\(open)}}` is never closed (expected `{{/\(open)}}`)")
        }
        return nodes
    }
}
