import FlowModel

/// `HTTPBlockParser.parse` on the block's bytes, for the blocks nearly every spec has: an ASCII
/// request line and headers, no carriage return, and nothing `parse` would report. There every
/// Character is one byte and one scalar (CR LF, the one ASCII pair that is a single Character,
/// cannot occur), so a byte offset is a code-point column, Character splits and trims are byte
/// splits and trims, and `isLetter`/`isNumber`/`isAlphabetic` of an ASCII Character are the
/// letters and digits. The body may hold any text (names in Vietnamese or Turkish): it is kept
/// as its bytes, placeholders are found by scalars (`{` and `}` are one byte each) and their
/// columns counted in scalars, and its trailing whitespace is cut on bytes when an ASCII byte
/// ends what is kept (no Prepend scalar can then join the cut whitespace to it; any other end
/// is left to the Character reading). The Character code took 73 000 instructions a block (a
/// String per line, an array of scalars per placeholder line), 93 000 with a non-ASCII body;
/// this takes a few thousand.
///
/// Nil means "read it by Characters": any other block, and any block with a problem, goes
/// through `parse`'s own checks, which write the diagnostics. `HTTPBlockBytesTests` holds the two
/// equal on generated blocks, valid and broken.
extension HTTPBlockParser {
    func parseASCII() -> RequestTemplate? {
        var literal = block.literal
        return literal.withUTF8 { bytes -> RequestTemplate? in
            for byte in bytes where byte == 0x0D { return nil }
            var lines: [Range<Int>] = []
            var start = 0
            for index in 0..<bytes.count where bytes[index] == 0x0A {
                lines.append(start..<index)
                start = index + 1
            }
            if start < bytes.count { lines.append(start..<bytes.count) }
            return parse(bytes, lines)
        }
    }

    private func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ lines: [Range<Int>]) -> RequestTemplate? {
        func string(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        func isBlank(_ range: Range<Int>) -> Bool { range.allSatisfy { Self.isSpace(bytes[$0]) } }
        func isASCII(_ range: Range<Int>) -> Bool { range.allSatisfy { bytes[$0] < 0x80 } }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var lower = range.lowerBound, upper = range.upperBound
            while lower < upper, Self.isSpace(bytes[lower]) { lower += 1 }
            while upper > lower, Self.isSpace(bytes[upper - 1]) { upper -= 1 }
            return lower..<upper
        }
        var lineIndex = 0
        while lineIndex < lines.count, isBlank(lines[lineIndex]) { lineIndex += 1 }
        guard lineIndex < lines.count, isASCII(lines[lineIndex]) else { return nil }
        // The request line: `METHOD /target` or `METHOD /target HTTP/x`, split at spaces.
        var parts: [Range<Int>] = []
        var partStart = -1
        for index in lines[lineIndex] {
            if bytes[index] == 0x20 {
                if partStart >= 0 { parts.append(partStart..<index); partStart = -1 }
            } else if partStart < 0 {
                partStart = index
            }
        }
        if partStart >= 0 { parts.append(partStart..<lines[lineIndex].upperBound) }
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let method = string(parts[0]), target = string(parts[1])
        guard Self.methods.contains(method), bytes[parts[1].lowerBound] == UInt8(ascii: "/") else { return nil }
        if parts.count == 3, !bytes[parts[2]].starts(with: "HTTP/".utf8) { return nil }
        var headers: [HeaderField] = []
        lineIndex += 1
        while lineIndex < lines.count, !isBlank(lines[lineIndex]) {
            let line = lines[lineIndex]
            guard isASCII(line), let colon = line.first(where: { bytes[$0] == UInt8(ascii: ":") }), colon != line.lowerBound,
                  (line.lowerBound..<colon).allSatisfy({ Self.isNameByte(bytes[$0]) })
            else { return nil }
            headers.append(HeaderField(name: string(line.lowerBound..<colon), value: string(trimmed((colon + 1)..<line.upperBound))))
            lineIndex += 1
        }
        var body: String?
        if lineIndex + 1 < lines.count {
            var end = bytes.count
            while end > lines[lineIndex + 1].lowerBound, bytes[end - 1].isASCIIWhitespace { end -= 1 }
            if end > lines[lineIndex + 1].lowerBound {
                guard bytes[end - 1] < 0x80 else { return nil }
                body = string(lines[lineIndex + 1].lowerBound..<end)
            }
        }
        var references: [VariableReference] = []
        for (offset, line) in lines.enumerated() {
            guard placeholders(bytes, line, line: offset + 1, into: &references) else { return nil }
        }
        return RequestTemplate(method: method, target: target, headers: headers, body: body,
                               references: references, location: block.fenceLocation)
    }

    /// `scanPlaceholders` on one line's bytes: false where it would report a problem.
    private func placeholders(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, line number: Int, into references: inout [VariableReference]) -> Bool {
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        var index = line.lowerBound
        while index + 1 < line.upperBound {
            guard bytes[index] == open, bytes[index + 1] == open else { index += 1; continue }
            var end = index + 2
            while end + 1 < line.upperBound, !(bytes[end] == close && bytes[end + 1] == close) { end += 1 }
            guard end + 1 < line.upperBound else { return false }
            var lower = index + 2, upper = end
            while lower < upper, bytes[lower].isASCIIWhitespace { lower += 1 }
            while upper > lower, bytes[upper - 1].isASCIIWhitespace { upper -= 1 }
            guard lower < upper, (lower..<upper).allSatisfy({ Self.isPlaceholderByte(bytes[$0]) }) else { return false }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[lower..<upper]), as: UTF8.self)
            let column = (line.lowerBound..<index).reduce(1) { count, at in bytes[at] & 0xC0 == 0x80 ? count : count + 1 }
            references.append(VariableReference(name: name, location: block.location(line: number, column: column)))
            index = end + 2
        }
        return true
    }

    /// The request methods a block may use.
    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

    /// White_Space within a line (no line feed, no carriage return here).
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C }

    /// ASCII White_Space.

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
    }

    /// A header name's byte: letter, digit, `-`, `_`.
    private static func isNameByte(_ byte: UInt8) -> Bool { isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") }

    /// A placeholder name's byte: letter, digit, `_`, `.`, `-`.
    private static func isPlaceholderByte(_ byte: UInt8) -> Bool { isNameByte(byte) || byte == UInt8(ascii: ".") }
}
