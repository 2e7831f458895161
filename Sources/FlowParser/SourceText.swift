import FlowModel

/// The bytes of one spec file, split into lines, with conversions between the byte columns
/// cmark reports and the code-point columns diagnostics use.
struct SourceText: Sendable {
    let file: String
    let bytes: [UInt8]
    /// Byte offset of the start of each line (line 1 at index 0).
    let lineStarts: [Int]

    init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        self.lineStarts = starts
    }

    var lineCount: Int { lineStarts.count }

    /// Bytes of a 1-based line, without its line terminator (`\n` or `\r\n`).
    func lineBytes(_ line: Int) -> ArraySlice<UInt8> {
        guard line >= 1, line <= lineStarts.count else { return [] }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return bytes[start..<max(start, end)]
    }

    func lineText(_ line: Int) -> String {
        String(decoding: lineBytes(line), as: UTF8.self)
    }

    /// Text of lines `first...last` joined with `\n`.
    func text(lines first: Int, _ last: Int) -> String {
        let lower = max(1, first), upper = min(last, lineCount)
        guard lower <= upper else { return "" }
        return (lower...upper).map(lineText).joined(separator: "\n")
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

    func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    /// The code-point column where `needle` first occurs on `line` at or after code-point
    /// column `from`, or nil.
    func column(of needle: String, onLine line: Int, from: Int = 1) -> Int? {
        let scalars = Array(lineText(line).unicodeScalars)
        let target = Array(needle.unicodeScalars)
        guard !target.isEmpty, scalars.count >= target.count else { return nil }
        var index = max(from - 1, 0)
        while index + target.count <= scalars.count {
            if Array(scalars[index..<(index + target.count)]) == target { return index + 1 }
            index += 1
        }
        return nil
    }
}

/// Why a file cannot be read as text at all.
enum UnusableInput: Equatable {
    case binary(offset: Int)
    case invalidUTF8(line: Int, column: Int)
}

extension SourceText {
    /// Checks the bytes are UTF-8 text (no NUL, valid sequences). A leading BOM is accepted.
    func unusableReason() -> UnusableInput? {
        if let nul = bytes.firstIndex(of: 0) { return .binary(offset: nul) }
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
