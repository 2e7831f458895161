import Yams

/// A composer for the plain YAML that specs write (front matter, `expect` blocks): the tree
/// `Yams.compose(yaml:, .basic, .default)` gives, built straight from the bytes when the text is
/// in a small subset, nil otherwise (the caller composes with Yams, which also reports errors).
///
/// Why: Yams composes through libyaml's events, wraps each in an object, and hashes every
/// mapping's keys to find duplicates; that was 0.8 M instructions a flow, 6 % of a site build
/// (callgrind). The subset: a block mapping of plain keys (letters, digits, `_ - . $ /`) at
/// column 1, whose values are plain or quoted one-line scalars (no escapes, no comments),
/// one-line flow sequences and flow mappings of those, `>`/`>-`/`|`/`|-` block scalars without
/// blank lines, block sequences of one-line items, and block mappings nested the same way.
/// Blank lines and whole-line comments between entries are skipped. Anything else (tabs, CR,
/// anchors, tags, directives, multi-line plain scalars, a duplicate key, an empty value) is
/// left to Yams. `PlainYAMLTests` holds every tree built here equal to Yams' on generated
/// documents, marks and styles included.
enum PlainYAML {
    /// `Constructor.default` makes a new constructor, three dictionaries of closures, at every
    /// use (8 700 instructions, once per expect block). Its maps are `let`s: one instance is
    /// shared, read-only, by every thread.
    nonisolated(unsafe) static let defaultConstructor = Constructor.default

    static func compose(_ text: String, resolver: Resolver = .basic, constructor: Constructor = defaultConstructor) -> Node? {
        guard canMark else { return nil }
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes, resolver: resolver, constructor: constructor)
            return reader.document()
        }
    }

    /// Yams makes a `Mark` only itself (its initialiser is internal): the struct is its two
    /// stored `Int`s, line then column, in this pinned version. Were that to change, `compose`
    /// gives up (`canMark`) and Yams composes; `PlainYAMLTests` compares every mark with Yams'.
    static let canMark = MemoryLayout<Mark>.size == MemoryLayout<(Int, Int)>.size
        && MemoryLayout<Mark>.offset(of: \Mark.line) == 0 && MemoryLayout<Mark>.offset(of: \Mark.column) == MemoryLayout<Int>.size

    static func mark(line: Int, column: Int) -> Mark { unsafeBitCast((line, column), to: Mark.self) }

    /// The keys met in one mapping, to find a duplicate: compared one by one while there are
    /// few (a front matter's mappings have about ten keys; hashing each as a String cost 1 100
    /// instructions), through a set past sixteen. Equal as Strings are (canonical equivalence),
    /// as the set compares them.
    struct MappingKeys {
        private var list: [String] = []
        private var set: Set<String> = []

        /// False when `key` was met already.
        mutating func insert(_ key: String) -> Bool {
            if list.count < 16 {
                if list.contains(key) { return false }
                list.append(key)
                return true
            }
            if set.isEmpty { set = Set(list) }
            return set.insert(key).inserted
        }
    }

    struct Line {
        let start: Int
        let end: Int
        /// Leading spaces.
        let indent: Int
        /// Only spaces, or a comment after them.
        let isBlank: Bool
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let resolver: Resolver
        let constructor: Constructor
        var lines: [Line] = []
        var row = 0

        init(bytes: UnsafeBufferPointer<UInt8>, resolver: Resolver, constructor: Constructor) {
            self.bytes = bytes
            self.resolver = resolver
            self.constructor = constructor
        }

        /// A node's own implicit tag (a `Tag` is resolved in place, so no two nodes share one).
        var tag: Tag { Tag(.implicit, resolver, constructor) }

        mutating func document() -> Node? {
            guard splitLines() else { return nil }
            skipBlank()
            guard row < lines.count, lines[row].indent == 0, let root = mapping(indent: 0) else { return nil }
            skipBlank()
            return row == lines.count ? root : nil
        }

        /// The lines; false when a byte the subset leaves to Yams is met (tab, CR, other
        /// controls and C1 controls, which libyaml refuses, a byte-order mark, a document
        /// marker, and the line breaks libyaml also knows: U+0085, U+2028, U+2029).
        private mutating func splitLines() -> Bool {
            var start = 0
            var index = 0
            while index <= bytes.count {
                if index == bytes.count || bytes[index] == 0x0A {
                    if index > start || index < bytes.count { guard addLine(start, index) else { return false } }
                    start = index + 1
                } else if bytes[index] < 0x20 || bytes[index] == 0x7F || bytes[index] == 0xEF {
                    return false
                } else if bytes[index] == 0xC2, index + 1 < bytes.count, bytes[index + 1] <= 0x9F {
                    return false
                } else if bytes[index] == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                    return false
                }
                index += 1
            }
            return true
        }

        private mutating func addLine(_ start: Int, _ end: Int) -> Bool {
            var indent = 0
            while start + indent < end, bytes[start + indent] == 0x20 { indent += 1 }
            let first = start + indent < end ? bytes[start + indent] : 0
            if indent == 0, end - start >= 3, (first == 0x2D || first == 0x2E), bytes[start + 1] == first, bytes[start + 2] == first { return false }
            if first == 0x25 { return false }
            lines.append(Line(start: start, end: end, indent: indent, isBlank: first == 0 || first == 0x23))
            return true
        }

        private mutating func skipBlank() { while row < lines.count, lines[row].isBlank { row += 1 } }

        func mark(_ line: Int, _ offset: Int) -> Mark {
            var column = 1
            for index in lines[line].start..<offset where bytes[index] & 0xC0 != 0x80 { column += 1 }
            return PlainYAML.mark(line: line + 1, column: column)
        }

        func string(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        func scalar(_ start: Int, _ end: Int, _ style: Node.Scalar.Style, at line: Int, _ markAt: Int) -> Node {
            .scalar(Node.Scalar(string(start, end), tag, style, mark(line, markAt)))
        }

        /// The block mapping whose keys are at `indent`, from the current line on.
        private mutating func mapping(indent: Int) -> Node? {
            let first = row
            var pairs: [(Node, Node)] = []
            var keys = MappingKeys()
            while row < lines.count {
                let line = lines[row]
                if line.isBlank { row += 1; continue }
                if line.indent < indent { break }
                guard line.indent == indent, let colon = keyEnd(line) else { return nil }
                let keyStart = line.start + indent
                let name = string(keyStart, colon)
                let key = Node.scalar(Node.Scalar(name, tag, .plain, mark(row, keyStart)))
                guard keys.insert(name), let value = value(after: colon + 1, indent: indent) else { return nil }
                pairs.append((key, value))
            }
            guard !pairs.isEmpty else { return nil }
            return .mapping(Node.Mapping(pairs, tag, .any, mark(first, lines[first].start + indent)))
        }

        /// The end of a plain key that `: ` or a line end follows.
        private func keyEnd(_ line: Line) -> Int? {
            var index = line.start + line.indent
            guard index < line.end, bytes[index] != 0x2D else { return nil }
            while index < line.end, isKeyByte(bytes[index]) { index += 1 }
            // libyaml takes a key of at most 1 024 characters on one line (a "simple key").
            guard index > line.start + line.indent, index - line.start - line.indent <= 1000, index < line.end, bytes[index] == 0x3A else { return nil }
            return index + 1 == line.end || bytes[index + 1] == 0x20 ? index : nil
        }

        private func isKeyByte(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D, 0x2E, 0x24, 0x2F: true
            default: false
            }
        }

        /// The value of a key whose `:` ends just before `start` on the current line; moves
        /// past the lines it takes.
        private mutating func value(after start: Int, indent: Int) -> Node? {
            let line = lines[row]
            var index = start
            while index < line.end, bytes[index] == 0x20 { index += 1 }
            if index == line.end {
                row += 1
                skipBlank()
                guard row < lines.count else { return nil }
                let next = lines[row]
                if isItem(next) { return next.indent >= indent ? sequence(indent: next.indent) : nil }
                return next.indent > indent ? mapping(indent: next.indent) : nil
            }
            switch bytes[index] {
            case 0x3E, 0x7C: return blockScalar(at: index, indent: indent)
            default:
                guard let node = inline(from: index, to: line.end) else { return nil }
                row += 1
                // A plain scalar continued on a more indented line is left to Yams.
                if case .scalar = node, row < lines.count, !lines[row].isBlank, lines[row].indent > indent { return nil }
                return node
            }
        }

        private func isItem(_ line: Line) -> Bool {
            let at = line.start + line.indent
            return at < line.end && bytes[at] == 0x2D && (at + 1 == line.end || bytes[at + 1] == 0x20)
        }

        /// A block sequence of one-line items at `indent`.
        private mutating func sequence(indent: Int) -> Node? {
            let first = row
            var items: [Node] = []
            while row < lines.count {
                let line = lines[row]
                if line.isBlank { row += 1; continue }
                if line.indent < indent || (line.indent == indent && !isItem(line)) { break }
                guard line.indent == indent, isItem(line) else { return nil }
                var index = line.start + indent + 1
                while index < line.end, bytes[index] == 0x20 { index += 1 }
                guard index < line.end, bytes[index] != 0x2D, bytes[index] != 0x3E, bytes[index] != 0x7C,
                    let item = inline(from: index, to: line.end), !isMappingEntry(item, line) else { return nil }
                items.append(item)
                row += 1
                if row < lines.count, !lines[row].isBlank, lines[row].indent > indent { return nil }
            }
            return .sequence(Node.Sequence(items, tag, .any, mark(first, lines[first].start + indent)))
        }

        /// An item such as `- key: value` is a mapping in YAML: left to Yams.
        private func isMappingEntry(_ item: Node, _ line: Line) -> Bool {
            guard case .scalar(let scalar) = item, scalar.style == .plain else { return false }
            return scalar.string.utf8Contains(byte: 0x3A)
        }

        /// A one-line value from `start` to `end` (trailing spaces allowed): a flow sequence, a
        /// flow mapping, a quoted or a plain scalar.
        private func inline(from start: Int, to end: Int) -> Node? {
            var last = end
            while last > start, bytes[last - 1] == 0x20 { last -= 1 }
            switch bytes[start] {
            case 0x5B: return flow(from: start, to: last, closing: 0x5D)
            case 0x7B: return flow(from: start, to: last, closing: 0x7D)
            case 0x22, 0x27:
                guard last - start >= 2, bytes[last - 1] == bytes[start], !contains(start + 1, last - 1, [bytes[start], 0x5C]) else { return nil }
                return scalar(start + 1, last - 1, bytes[start] == 0x22 ? .doubleQuoted : .singleQuoted, at: row, start)
            default:
                guard isPlain(start, last, inFlow: false) else { return nil }
                return scalar(start, last, .plain, at: row, start)
            }
        }

        func contains(_ start: Int, _ end: Int, _ set: [UInt8]) -> Bool {
            var index = start
            while index < end {
                if set.contains(bytes[index]) { return true }
                index += 1
            }
            return false
        }

        /// Whether `start..<end` is a plain scalar on its own: no indicator first, no `: ` or
        /// ` #` inside, no `:` last; in a flow collection no `,[]{}` and no `:` at all.
        func isPlain(_ start: Int, _ end: Int, inFlow: Bool) -> Bool {
            guard start < end else { return false }
            switch bytes[start] {
            case 0x2D, 0x3F, 0x3A, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x27, 0x22, 0x25, 0x40, 0x60, 0x20:
                return false
            default: break
            }
            var index = start
            while index < end {
                switch bytes[index] {
                case 0x3A:
                    if inFlow || index + 1 == end || bytes[index + 1] == 0x20 { return false }
                case 0x23:
                    if bytes[index - 1] == 0x20 { return false }
                case 0x2C, 0x5B, 0x5D, 0x7B, 0x7D:
                    if inFlow { return false }
                default: break
                }
                index += 1
            }
            return true
        }
    }
}

extension PlainYAML.Reader {
    /// `[a, b]` or `{ k: v, k2: v2 }` on one line: plain or quoted scalars, nothing nested.
    fileprivate func flow(from start: Int, to end: Int, closing: UInt8) -> Node? {
        guard end - start >= 2, bytes[end - 1] == closing else { return nil }
        let isMapping = closing == 0x7D
        var items: [Node] = []
        var pairs: [(Node, Node)] = []
        var keys = PlainYAML.MappingKeys()
        var index = start + 1
        let inner = end - 1
        func skipSpaces() { while index < inner, bytes[index] == 0x20 { index += 1 } }
        skipSpaces()
        while index < inner {
            guard let (key, keyEnd) = flowScalar(from: index, to: inner, stops: isMapping ? 0x3A : 0x2C), !isMapping || keyEnd - index <= 1000 else { return nil }
            index = keyEnd
            if isMapping {
                guard index + 1 < inner, bytes[index] == 0x3A, bytes[index + 1] == 0x20, case .scalar(let name) = key,
                    keys.insert(name.string) else { return nil }
                index += 1
                skipSpaces()
                guard let (value, valueEnd) = flowScalar(from: index, to: inner, stops: 0x2C) else { return nil }
                pairs.append((key, value))
                index = valueEnd
            } else {
                items.append(key)
            }
            guard index == inner || bytes[index] == 0x2C else { return nil }
            if index < inner {
                index += 1
                skipSpaces()
                guard index < inner else { return nil }
            }
        }
        let at = mark(row, start)
        return isMapping ? .mapping(Node.Mapping(pairs, tag, .any, at)) : .sequence(Node.Sequence(items, tag, .any, at))
    }

    /// A scalar in a flow collection from `start`, ending before `stop` (or the collection's
    /// end), trailing spaces dropped; and where it ends.
    private func flowScalar(from start: Int, to end: Int, stops stop: UInt8) -> (Node, Int)? {
        guard start < end else { return nil }
        let quote = bytes[start]
        if quote == 0x22 || quote == 0x27 {
            var close = start + 1
            while close < end, bytes[close] != quote {
                if bytes[close] == 0x5C { return nil }
                close += 1
            }
            guard close < end else { return nil }
            var after = close + 1
            while after < end, bytes[after] == 0x20 { after += 1 }
            return (scalar(start + 1, close, quote == 0x22 ? .doubleQuoted : .singleQuoted, at: row, start), after)
        }
        var stopAt = start
        while stopAt < end, bytes[stopAt] != stop, bytes[stopAt] != 0x2C { stopAt += 1 }
        var last = stopAt
        while last > start, bytes[last - 1] == 0x20 { last -= 1 }
        guard isPlain(start, last, inFlow: true) else { return nil }
        return (scalar(start, last, .plain, at: row, start), stopAt)
    }

    /// `>`, `>-`, `|` or `|-` at `start`, and the lines more indented than `indent` after it:
    /// folded lines joined by a space, literal ones by a line feed; kept (clip) or without
    /// (strip) the last line feed. No blank lines, no trailing spaces, folded lines at one
    /// indentation.
    fileprivate mutating func blockScalar(at start: Int, indent: Int) -> Node? {
        let line = lines[row]
        let folded = bytes[start] == 0x3E
        var header = start + 1
        let strip = header < line.end && bytes[header] == 0x2D
        if strip { header += 1 }
        guard header == line.end else { return nil }
        let at = mark(row, start)
        row += 1
        guard row < lines.count, lines[row].indent > indent, lines[row].start + lines[row].indent < lines[row].end else { return nil }
        let contentIndent = lines[row].indent
        var text: [UInt8] = []
        while row < lines.count, lines[row].indent >= contentIndent || lines[row].start == lines[row].end {
            let content = lines[row]
            guard content.start + content.indent < content.end, bytes[content.end - 1] != 0x20 else { return nil }
            if folded, content.indent != contentIndent { return nil }
            if !text.isEmpty { text.append(folded ? 0x20 : 0x0A) }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(content.start + contentIndent)..<content.end]))
            row += 1
        }
        if row < lines.count, lines[row].indent > indent { return nil }
        // Clip keeps the last line's break, when the text has one.
        if !strip, lines[row - 1].end < bytes.count { text.append(0x0A) }
        return .scalar(Node.Scalar(String(decoding: text, as: UTF8.self), tag, folded ? .folded : .literal, at))
    }
}
