import Testing
import TestSupport
import FlowModel
@testable import FlowParser

/// `FlowBuilder.stepHeading` reads a heading line on bytes as the reading on arrays of Unicode
/// scalars did (written out below, as it was).
@Suite struct StepHeadingTests {
    static func reference(_ raw: String) -> FlowBuilder.StepHeading {
        let scalars = Array(raw.unicodeScalars)
        var index = 0
        while index < scalars.count, scalars[index] == " " { index += 1 }
        while index < scalars.count, scalars[index] == "#" { index += 1 }
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        let numberStart = index
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" || scalars[index] == "−" {
            var end = index + 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            if end > index + 1, end < scalars.count, scalars[end] == "." || scalars[end] == ")" {
                return .signed(written: String(String.UnicodeScalarView(scalars[index..<end])), column: numberStart + 1)
            }
        }
        while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
        guard index > numberStart, index < scalars.count, scalars[index] == "." || scalars[index] == ")" else { return .notAStep }
        let digits = String(String.UnicodeScalarView(scalars[numberStart..<index]))
        guard digits.count <= 6, let number = Int(digits), number > 0 else { return .outOfRange(digits: digits, column: numberStart + 1) }
        index += 1
        let title = String(String.UnicodeScalarView(scalars[index...])).trimmingCharacters().trimmingClosingHashes()
        return .step(number: number, title: title, column: numberStart + 1)
    }

    @Test func bytesReadWhatScalarsRead() {
        let alphabet = ["#", "### ", " ", "\t", "1", "0", "9", "12", ".", ")", "-", "+", "−", "—", "é", "\u{301}", "Bước", "ş",
                        " #", "##", "1234567", "👍", "x", "\u{A0}", "\u{2212}\u{301}"]
        var random = SplitMix(seed: 41)
        var kinds: [String: Int] = [:]
        for _ in 0..<30000 {
            // Half the lines start as a heading's number might: a sign, digits, a closing mark.
            let number = random.next(2) == 0 ? "" : ["", "", "-", "+", "−", "−\u{301}"][random.next(6)] + ["", "1", "42", "0", "1234567", "00"][random.next(6)]
                + ["", ".", ")", " ."][random.next(4)]
            let line = (random.next(2) == 0 ? "### " : "") + number + (0..<random.next(10)).map { _ in alphabet[random.next(alphabet.count)] }.joined()
            let fast = FlowBuilder.stepHeading(Array(line.utf8)[...])
            #expect(fast == Self.reference(line), "\(line.debugDescription)")
            kinds["\(fast)".prefix { $0 != "(" }.description, default: 0] += 1
        }
        // Every kind of heading is met.
        for kind in ["notAStep", "signed", "outOfRange", "step"] {
            #expect(kinds[kind, default: 0] > 100, "\(kind): \(kinds)")
        }
    }
}
