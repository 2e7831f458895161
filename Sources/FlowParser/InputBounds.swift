import FlowModel

/// Work bounds checked on the raw lines **before** cmark-gfm sees a spec.
///
/// cmark-gfm pads every table row to the header's width, so a few bytes of rows under a wide
/// header become millions of cells (the Debian 0.29.0.gfm.6 build also has the quadratic table
/// cost of CVE-2023-37463): a 136 KB spec took 9.4 GB. Counting cells as cmark will build them
/// (rows × header columns) bounds that, and keeps peak memory per spec linear in its size
/// (docs/flow-format.md, "Limits"). Block quotes nested deeper than any document needs are
/// refused too.
enum InputBounds {
    /// Columns of one table (its delimiter row).
    static let maximumColumns = 128
    /// Cells of all tables of a spec, counted as cmark builds them: (rows + 1) × columns.
    static let maximumCells = 100_000
    /// `>` markers at the start of one line.
    static let maximumQuoteDepth = 32

    static func check(_ source: SourceText) -> Diagnostic? {
        var cells = 0
        var fence: (byte: UInt8, length: Int)?
        var line = 1
        while line <= source.lineCount {
            let bytes = source.lineBytes(line)
            let trimmed = bytes.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            // Fenced code is text: its pipes and `>` are not tables or quotes.
            if let marker = trimmed.first, marker == UInt8(ascii: "`") || marker == UInt8(ascii: "~") {
                let run = trimmed.prefix { $0 == marker }.count
                if run >= 3 {
                    if let open = fence {
                        if open.byte == marker, run >= open.length { fence = nil }
                    } else {
                        fence = (marker, run)
                    }
                    line += 1
                    continue
                }
            }
            if fence != nil {
                line += 1
                continue
            }
            let quotes = trimmed.prefix { $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: " ") }.filter { $0 == UInt8(ascii: ">") }.count
            if quotes > maximumQuoteDepth {
                return Diagnostic(
                    code: "FS006", severity: .error, location: source.location(line: line, column: 1),
                    message: "block quotes nested \(quotes) deep; flowspec reads at most \(maximumQuoteDepth)",
                    hint: "no flow spec needs this; is the file generated?")
            }
            if line < source.lineCount, bytes.contains(UInt8(ascii: "|")), let columns = delimiterColumns(source.lineBytes(line + 1)) {
                var rows = 0
                var next = line + 2
                while next <= source.lineCount, !source.lineBytes(next).allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                    rows += 1
                    next += 1
                }
                if columns > maximumColumns {
                    return Diagnostic(
                        code: "FS006", severity: .error, location: source.location(line: line, column: 1),
                        message: "table has \(columns) columns; flowspec reads at most \(maximumColumns)",
                        hint: "split the table, or turn its columns into rows")
                }
                cells += (rows + 1) * columns
                if cells > maximumCells {
                    return Diagnostic(
                        code: "FS006", severity: .error, location: source.location(line: line, column: 1),
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

    /// The number of cells of a GFM delimiter row (`| --- | :-: |`), nil when it is not one.
    static func delimiterColumns(_ bytes: ArraySlice<UInt8>) -> Int? {
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
