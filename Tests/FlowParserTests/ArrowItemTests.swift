import Testing
import TestSupport
import FlowModel
@testable import FlowParser

/// `FlowBuilder.arrowItem(in:…)` reads an alternate's `label → target` on bytes as the reading
/// on arrays of Unicode scalars did (written out below, as it was).
@Suite struct ArrowItemTests {
    static func reference(_ source: SourceText, firstLine: Int, lastLine: Int, byteColumn: Int) -> FlowBuilder.ArrowItem? {
        let scalars = Array(source.lineText(lastLine).unicodeScalars)
        var arrowIndex: Int?
        var arrowLength = 1
        var index = scalars.count - 1
        while index >= 0 {
            if scalars[index] == "→" { arrowIndex = index; arrowLength = 1; break }
            if scalars[index] == ">", index > 0, scalars[index - 1] == "-" { arrowIndex = index - 1; arrowLength = 2; break }
            index -= 1
        }
        guard let arrowIndex else { return nil }
        let afterArrow = String(String.UnicodeScalarView(scalars[(arrowIndex + arrowLength)...]))
        let targetText = afterArrow.trimmingCharacters()
        guard !targetText.isEmpty else { return nil }
        let leading = afterArrow.unicodeScalars.prefix { $0 == " " || $0 == "\t" }.count
        let targetLocation = source.location(line: lastLine, column: arrowIndex + arrowLength + leading + 1)
        let startColumn = source.scalarColumn(line: firstLine, byteColumn: byteColumn)
        var labelLines: [String] = []
        for line in firstLine...lastLine {
            var text = Array(source.lineText(line).unicodeScalars)
            if line == lastLine { text = Array(text[..<arrowIndex]) }
            if line == firstLine { text = Array(text.dropFirst(startColumn - 1)) }
            labelLines.append(String(String.UnicodeScalarView(text)).trimmingCharacters())
        }
        let label = labelLines.joined(separator: " ").trimmingCharacters().trimmingTrailingColon()
        return FlowBuilder.ArrowItem(label: label, targetText: targetText, target: FlowBuilder.target(targetText), targetLocation: targetLocation)
    }

    @Test func bytesReadWhatScalarsRead() {
        let alphabet = ["- ", "→", "->", "-", ">", " ", "\t", "é", "e\u{301}", "\u{301}", "`3`", "4", "end", "end: denied", ": ", "ş",
                        "Người dùng", "👍", "\r", "\n", "\n", "—>", "=>", "\u{2192}\u{301}"]
        var random = SplitMix(seed: 31)
        var items = 0
        for _ in 0..<8000 {
            let text = (0..<random.next(24)).map { _ in alphabet[random.next(alphabet.count)] }.joined()
            let source = SourceText(file: "t.md", bytes: Array(text.utf8))
            let first = 1 + random.next(max(1, source.lineCount))
            let last = first + random.next(3)
            for byteColumn in [1, 2, 3, 1 + random.next(12), 40] {
                let fast = FlowBuilder.arrowItem(in: source, firstLine: first, lastLine: last, byteColumn: byteColumn)
                #expect(fast == Self.reference(source, firstLine: first, lastLine: last, byteColumn: byteColumn),
                        "\(text.debugDescription) lines \(first)–\(last) column \(byteColumn)")
                if fast != nil { items += 1 }
            }
        }
        #expect(items > 4000, "\(items) arrow items read")
    }
}
