import FlowModel

/// The bytes of one spec file, split into lines, with conversions between the byte columns
/// cmark reports and the code-point columns diagnostics use.
package struct SourceText: Sendable {
    package let file: String
    package let bytes: [UInt8]
    /// Byte offset of the start of each line (line 1 at index 0).
    let lineStarts: [Int]

    package init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            // Sixteen bytes without a line feed at a time.
            var index = 0
            while index < buffer.count {
                index = ByteBlocks.skip(buffer, from: index) { ByteBlocks.equal($0, 0x0A) }
                let blockEnd = min(index + 16, buffer.count)
                while index < blockEnd {
                    if buffer[index] == 0x0A { starts.append(index + 1) }
                    index += 1
                }
            }
        }
        self.lineStarts = starts
    }

    var lineCount: Int { lineStarts.count }

    /// Bytes of a 1-based line, without its line terminator (`\n` or `\r\n`).
    func lineBytes(_ line: Int) -> ArraySlice<UInt8> {
        bytes[lineRange(line)]
    }

    /// Where `lineBytes(line)` is in `bytes` (empty for a line that does not exist).
    func lineRange(_ line: Int) -> Range<Int> {
        guard line >= 1, line <= lineStarts.count else { return 0..<0 }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return start..<max(start, end)
    }

    /// The bytes of `line` from code-point column `column` on (empty past its end).
    func lineBytes(_ line: Int, fromColumn column: Int) -> ArraySlice<UInt8> {
        let bytes = lineBytes(line)
        var seen = 1
        for index in bytes.indices where bytes[index] & 0xC0 != 0x80 {
            if seen >= column { return bytes[index...] }
            seen += 1
        }
        return bytes[bytes.endIndex...]
    }

    func lineText(_ line: Int) -> String {
        String(decoding: lineBytes(line), as: UTF8.self)
    }

    /// Text of lines `first...last` joined with `\n`.
    package func text(lines first: Int, _ last: Int) -> String {
        let lower = max(1, first), upper = min(last, lineCount)
        guard lower <= upper else { return "" }
        // With no carriage return among them, the lines joined with `\n` are the bytes as they are.
        let whole = self.bytes[lineStarts[lower - 1]..<max(lineStarts[lower - 1], lineBytes(upper).endIndex)]
        if !whole.containsByte(0x0D) { return String(decoding: whole, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lineBytes(upper).endIndex - lineStarts[lower - 1])
        for line in lower...upper {
            if line > lower { bytes.append(0x0A) }
            bytes.append(contentsOf: lineBytes(line))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Converts a 1-based byte column on `line` into a 1-based code-point column.
    func scalarColumn(line: Int, byteColumn: Int) -> Int {
        let lineBytes = lineBytes(line)
        let prefixLength = min(max(byteColumn - 1, 0), lineBytes.count)
        var count = 0
        for byte in lineBytes.prefix(prefixLength) where byte & 0xC0 != 0x80 {
            count += 1
        }
        return count + 1
    }

    func location(line: Int, byteColumn: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: scalarColumn(line: line, byteColumn: byteColumn))
    }

    package func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    /// The code-point column where `needle` first occurs on `line` at or after code-point
    /// column `from`, or nil.
    /// Searched on the line's UTF-8 bytes (a parsed file's are valid UTF-8): a needle's bytes can
    /// only match where a code point starts, so the first byte match is the first scalar match.
    func column(of needle: String, onLine line: Int, from: Int = 1) -> Int? {
        let hay = lineBytes(line)
        var needle = needle
        return needle.withUTF8 { target -> Int? in
            guard let first = target.first else { return nil }
            var start = hay.startIndex
            var column = 1
            while column < from, start < hay.endIndex {  // the byte where code point `from` starts
                start += 1
                while start < hay.endIndex, hay[start] & 0xC0 == 0x80 { start += 1 }
                column += 1
            }
            guard column == from || from < 1 else { return nil }
            var index = start
            while index + target.count <= hay.endIndex {
                if hay[index] == first, hay[index..<(index + target.count)].elementsEqual(target) {
                    return column + hay[start..<index].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
                }
                index += 1
            }
            return nil
        }
    }
}

/// Why a file cannot be read as text at all.
package enum UnusableInput: Equatable {
    case binary(offset: Int)
    case invalidUTF8(line: Int, column: Int)
    /// UTF-16 or UTF-32 text (by its byte-order mark, or ASCII interleaved with NUL bytes).
    case otherEncoding(String)

    /// The diagnostic that says so (FS001 binary, FS002 not UTF-8), with what to do.
    package func diagnostic(in source: SourceText) -> Diagnostic {
        let file = source.file
        switch self {
        case .binary(let offset):
            return Diagnostic(.binaryFile, severity: .error, location: .start(of: file),
                              message: "file is binary (NUL byte at offset \(offset)), not a Markdown spec",
                              hint: "flow specs are UTF-8 Markdown files; is this the right path?")
        case .invalidUTF8(let line, let column):
            return Diagnostic(.notUTF8, severity: .error, location: SourceLocation(file: file, line: line, column: column),
                              message: "file is not valid UTF-8",
                              hint: "save the file as UTF-8 (not Latin-1, Windows-1254 or UTF-16)")
        case .otherEncoding(let encoding):
            return Diagnostic(.notUTF8, severity: .error, location: .start(of: file),
                              message: "file is \(encoding), not UTF-8",
                              hint: "save the file as UTF-8 (in most editors: Save with Encoding → UTF-8)")
        }
    }
}

extension SourceText {
    /// The encoding a byte-order mark or NUL-interleaved ASCII reveals, when it is not UTF-8.
    func otherEncoding() -> String? {
        let head = Array(bytes.prefix(64))
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32 (little-endian, with a byte-order mark)" }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32 (big-endian, with a byte-order mark)" }
        if head.starts(with: [0xFF, 0xFE]) { return "UTF-16 (little-endian, with a byte-order mark)" }
        if head.starts(with: [0xFE, 0xFF]) { return "UTF-16 (big-endian, with a byte-order mark)" }
        // ASCII text in UTF-16 without a mark: every other byte is NUL.
        guard head.count >= 8 else { return nil }
        let even = stride(from: 0, to: head.count, by: 2).map { head[$0] }
        let odd = stride(from: 1, to: head.count, by: 2).map { head[$0] }
        if odd.allSatisfy({ $0 == 0 }), even.allSatisfy({ $0 >= 0x09 && $0 < 0x80 }) { return "UTF-16 (little-endian)" }
        if even.allSatisfy({ $0 == 0 }), odd.allSatisfy({ $0 >= 0x09 && $0 < 0x80 }) { return "UTF-16 (big-endian)" }
        return nil
    }

    /// Checks the bytes are UTF-8 text (no NUL, valid sequences). A leading BOM is accepted.
    package func unusableReason() -> UnusableInput? {
        if let encoding = otherEncoding() { return .otherEncoding(encoding) }
        // Most files: UTF-8 without NUL, found in one pass without copying them.
        if bytes.withUnsafeBufferPointer({ ByteBlocks.isUTF8WithoutNUL($0) }) { return nil }
        if let nul = bytes.firstIndex(of: 0) { return .binary(offset: nul) }
        // The standard library's validator first (a fraction of the cost of decoding scalar by
        // scalar); the walk below only runs to say where invalid UTF-8 is.
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        var column = 1
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            case .emptyInput:
                break loop
            case .error:
                return .invalidUTF8(line: line, column: column)
            }
        }
        return nil
    }
}
