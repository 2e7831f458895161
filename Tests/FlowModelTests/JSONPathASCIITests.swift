import Testing
import TestSupport
@testable import FlowModel

/// `JSONPath(parsing:)` reads ASCII paths on bytes: it makes what the Character reading makes
/// of them, valid or not, and leaves every other text to it.
@Suite struct JSONPathASCIITests {
    @Test func asciiPathsReadAsCharactersDo() {
        let pieces = ["$", ".", "[", "]", "'", "\"", "a", "Z", "k", "0", "9", "12", "_", "-", " ", "é", "\r\n", "\r", "٣", "x", ".id", "['a b']", "[3]", "\t"]
        var generator = SplitMix(seed: 31)
        var read = 0, valid = 0
        for round in 0..<30_000 {
            var text = round % 3 == 0 ? "$" : ""
            for _ in 0..<generator.next(10) { text += pieces[generator.next(pieces.count)] }
            let expected = JSONPath(parsingCharacters: text)
            #expect(JSONPath(parsing: text) == expected, "\(text.debugDescription)")
            if case .notASCII = JSONPath.parseASCII(text.trimmingCharacters()) { continue }
            read += 1
            if expected != nil { valid += 1 }
        }
        // Most texts take the byte reading, valid paths among them.
        #expect(read > 15_000 && valid > 1_000, "\(read) read on bytes, \(valid) valid")
    }
}
