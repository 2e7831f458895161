import FlowModel

/// An alternate's list item, `label → target` (or `->`), read from the spec's bytes.
extension FlowBuilder {
    struct ArrowItem: Equatable {
        var label: String
        var targetText: String
        var target: Target?
        var targetLocation: SourceLocation
    }

    func arrowItem(_ item: CmarkNode, offset: Int) -> ArrowItem? {
        guard let paragraph = item.firstChild, paragraph.type == "paragraph" else { return nil }
        let firstLine = paragraph.startLine + offset
        let lastLine = max(paragraph.startLine, paragraph.endLine) + offset
        return Self.arrowItem(in: source, firstLine: firstLine, lastLine: lastLine, byteColumn: paragraph.startColumn)
    }

    /// The paragraph from byte column `byteColumn` of `firstLine` to the end of `lastLine` as an
    /// arrow item: the arrow is the last `→` or `->` on the last line, the target what follows
    /// it, the label the text before it across the lines. Columns are code points. On the lines'
    /// bytes: both arrows are found by their bytes (UTF-8 never matches inside another scalar),
    /// and the label's and target's ends fall on scalar starts. Written on arrays of scalars this
    /// took 20 000 instructions an alternate; `ArrowItemTests` holds it to that reading.
    static func arrowItem(in source: SourceText, firstLine: Int, lastLine: Int, byteColumn: Int) -> ArrowItem? {
        let last = source.lineBytes(lastLine)
        var arrow: Range<Int>?
        var index = last.endIndex - 1
        while index >= last.startIndex {
            if last[index] == 0x92, index - 2 >= last.startIndex, last[index - 1] == 0x86, last[index - 2] == 0xE2 {
                arrow = (index - 2)..<(index + 1)
                break
            }
            if last[index] == UInt8(ascii: ">"), index - 1 >= last.startIndex, last[index - 1] == UInt8(ascii: "-") {
                arrow = (index - 1)..<(index + 1)
                break
            }
            index -= 1
        }
        guard let arrow else { return nil }
        let after = last[arrow.upperBound...]
        let targetText = String(decoding: after, as: UTF8.self).trimmingCharacters()
        guard !targetText.isEmpty else { return nil }
        let leading = after.prefix { $0 == 0x20 || $0 == 0x09 }.count
        let arrowColumn = source.scalarColumn(line: lastLine, byteColumn: arrow.lowerBound - last.startIndex + 1)
        let targetLocation = source.location(line: lastLine, column: arrowColumn + (arrow.count == 3 ? 1 : 2) + leading)
        // Label: the paragraph's text before the arrow, its lines trimmed and joined by spaces.
        let startColumn = source.scalarColumn(line: firstLine, byteColumn: byteColumn)
        var labelLines: [String] = []
        for line in firstLine...lastLine {
            let bytes = line == firstLine ? source.lineBytes(line, fromColumn: startColumn) : source.lineBytes(line)
            let upper = line == lastLine ? arrow.lowerBound : bytes.endIndex
            let lower = bytes.startIndex
            labelLines.append(lower < upper ? String(decoding: bytes[lower..<upper], as: UTF8.self).trimmingCharacters() : "")
        }
        let label = labelLines.joined(separator: " ").trimmingCharacters().trimmingTrailingColon()
        return ArrowItem(label: label, targetText: targetText, target: target(targetText), targetLocation: targetLocation)
    }
}
