import FlowModel
import Foundation

/// Work bounds checked on the raw lines **before** cmark-gfm sees a spec.
///
/// cmark-gfm pads every table row to the header's width, so a few bytes of rows under a wide
/// header become millions of cells (the Debian 0.29.0.gfm.6 build also has the quadratic table
/// cost of CVE-2023-37463): a 136 KB spec took 9.4 GB. Counting cells as cmark will build them
/// (rows × header columns) bounds that, and keeps peak memory per spec linear in its size
/// (docs/flow-format.md, "Limits"). Block quotes nested deeper than any document needs are
/// refused too.
package enum InputBounds {
    /// Columns of one table (its delimiter row).
    static let maximumColumns = 128
    /// Cells of all tables of a spec, counted as cmark builds them: (rows + 1) × columns.
    static let maximumCells = 100_000
    /// `>` markers at the start of one line.
    static let maximumQuoteDepth = 32

    /// Over-approximates on purpose: fenced code is not skipped (telling a fence from an
    /// indented or HTML-embedded run of backticks is cmark's job, and a wrong guess would hide a
    /// table from the bound), and container prefixes (`>` quotes, list markers, indentation)
    /// are stripped before a line is read as a table row.
    package static func check(_ source: SourceText) -> Diagnostic? {
        var cells = 0
        var line = 1
        while line <= source.lineCount {
            // The `>` markers among the line's leading spaces, tabs and markers, and whether it
            // has a `|`: read in place (most lines are only this).
            let range = source.lineRange(line)
            let (quotes, hasPipe) = source.bytes.withUnsafeBufferPointer { buffer in
                var quotes = 0
                for index in range {
                    let byte = buffer[index]
                    if byte == UInt8(ascii: ">") { quotes += 1 } else if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { break }
                }
                let bytes = UnsafeBufferPointer(rebasing: buffer[range])
                return (quotes, bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "|")), bytes.count) != nil } ?? false)
            }
            if quotes > maximumQuoteDepth {
                return Diagnostic(.workBound, severity: .error, location: source.location(line: line, column: 1),
                    message: "block quotes nested \(quotes) deep; flowspec reads at most \(maximumQuoteDepth)",
                    hint: "no flow spec needs this; is the file generated?")
            }
            if line < source.lineCount, hasPipe, let columns = delimiterColumns(containerStripped(source.lineBytes(line + 1))) {
                if columns > maximumColumns {
                    return Diagnostic(.workBound, severity: .error, location: source.location(line: line, column: 1),
                        message: "table has \(columns) columns; flowspec reads at most \(maximumColumns)",
                        hint: "split the table, or turn its columns into rows")
                }
                var rows = 0
                var next = line + 2
                // cmark-gfm builds every cell a row line writes (a linked list, appended to from
                // its head: quadratic in the cells of one line) before it trims the row to the
                // header's width, so the cells written per line are bounded too.
                var widest = (line, pipes(in: source.lineBytes(line)))
                while next <= source.lineCount, !source.lineBytes(next).allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                    let pipes = pipes(in: source.lineBytes(next))
                    if pipes > widest.1 { widest = (next, pipes) }
                    rows += 1
                    next += 1
                }
                if widest.1 > maximumColumns + 1 {
                    return Diagnostic(.workBound, severity: .error, location: source.location(line: widest.0, column: 1),
                        message: "table row writes \(widest.1) cell separators; flowspec reads at most \(maximumColumns) columns",
                        hint: "split the table, or turn its columns into rows")
                }
                cells += (rows + 1) * columns
                if cells > maximumCells {
                    return Diagnostic(.workBound, severity: .error, location: source.location(line: line, column: 1),
                        message: "tables up to this one hold \(cells) cells (rows × columns, short rows padded); flowspec reads at most \(maximumCells) per spec",
                        hint: "split the spec, or move the data out of Markdown tables")
                }
                line = next
                continue
            }
            line += 1
        }
        return nil
    }

    /// A line without the containers a table can sit in: indentation, `>` quote markers and
    /// list item markers (`-`, `*`, `+`, `1.`, `1)`), repeatedly.
    static func containerStripped(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var rest = bytes
        while true {
            let before = rest.count
            rest = rest.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if rest.first == UInt8(ascii: ">") { rest = rest.dropFirst() }
            if let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "*") || first == UInt8(ascii: "+"),
                rest.dropFirst().first == UInt8(ascii: " ")
            {
                // `- ` starts a list item; `- ---` stays a delimiter row candidate after it.
                rest = rest.dropFirst(2)
            }
            let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            if !digits.isEmpty, digits.count <= 9, let marker = rest.dropFirst(digits.count).first,
                marker == UInt8(ascii: ".") || marker == UInt8(ascii: ")"), rest.dropFirst(digits.count + 1).first == UInt8(ascii: " ")
            {
                rest = rest.dropFirst(digits.count + 2)
            }
            if rest.count == before { return rest }
        }
    }

    static func pipes(in bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "|") ? 1 : 0) }
    }

    /// The number of cells of a GFM delimiter row (`| --- | :-: |`), nil when it is not one.
    static func delimiterColumns(_ bytes: ArraySlice<UInt8>) -> Int? {
        // A delimiter row has no other bytes than these; every other line with a `|` (a table's
        // rows) is told apart here without copying it.
        guard bytes.allSatisfy({ $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        else { return nil }
        var text = Array(bytes)
        while let last = text.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { text.removeLast() }
        while let first = text.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { text.removeFirst() }
        guard !text.isEmpty else { return nil }
        if text.first == UInt8(ascii: "|") { text.removeFirst() }
        if text.last == UInt8(ascii: "|") { text.removeLast() }
        var columns = 0
        for cell in text.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false) {
            let content = cell.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            guard !content.isEmpty else { return nil }
            var body = content[...]
            if body.first == UInt8(ascii: ":") { body = body.dropFirst() }
            if body.last == UInt8(ascii: ":") { body = body.dropLast() }
            guard !body.isEmpty, body.allSatisfy({ $0 == UInt8(ascii: "-") }) else { return nil }
            columns += 1
        }
        return columns
    }
}
