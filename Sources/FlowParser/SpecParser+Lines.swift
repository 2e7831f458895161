import FlowModel

/// Where a block's lines are. cmark-gfm 0.29 gives a paragraph that a GFM table interrupts no
/// position (line 0), and starts the table's range at the paragraph's first line. The two are
/// told apart by the table's delimiter row (`|---|:-:|`): the line before it is the table's
/// header row, the lines before that are the paragraph's.
extension FlowBuilder {
    /// A block's first and last line in the body (before `offset`); (0, 0) for a block with no
    /// position.
    func lines(of block: CmarkNode) -> (first: Int, last: Int) {
        if let placed = placedLines[block.pointer] { return placed }
        return (block.startLine, max(block.startLine, block.endLine))
    }

    /// Places each top-level paragraph that a table interrupts, and the table after it.
    mutating func placeInterruptedParagraphs(_ document: CmarkDocument, offset: Int) {
        var node = document.root.firstChild
        while let block = node {
            node = block.next
            guard block.startLine == 0, block.type == "paragraph", let table = block.next, table.type == "table", table.startLine > 0
            else { continue }
            var delimiter = table.startLine + 1
            while delimiter <= table.endLine, !Self.isDelimiterRow(source.lineBytes(delimiter + offset)) { delimiter += 1 }
            let header = delimiter - 1
            guard delimiter <= table.endLine, header > table.startLine else { continue }
            placedLines[block.pointer] = (table.startLine, header - 1)
            placedLines[table.pointer] = (header, max(header, table.endLine))
        }
    }

    /// A GFM delimiter row: pipes, dashes, colons and spaces, with at least one dash.
    static func isDelimiterRow(_ line: ArraySlice<UInt8>) -> Bool {
        var dash = false
        for byte in line {
            switch byte {
            case UInt8(ascii: "-"): dash = true
            case UInt8(ascii: "|"), UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "\t"): break
            default: return false
            }
        }
        return dash
    }
}
