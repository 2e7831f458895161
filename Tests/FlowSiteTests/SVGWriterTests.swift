import Testing
import TestSupport
@testable import FlowSite

/// `SVGWriter` keeps its markup in a buffer of its own: whatever it is asked to write, and
/// however often the buffer grows, it holds what an Array written the same way holds.
@Suite struct SVGWriterTests {
    @Test func writerHoldsWhatAnArrayHolds() {
        let texts = ["", "a", "<tspan>", "Đăng nhập & \"ủy quyền\"", "a\u{202E}b", "'", String(repeating: "x", count: 300), "→ ■"]
        var generator = SplitMix(seed: 21)
        for round in 0..<300 {
            // A small first buffer, so that most rounds grow it several times.
            var writer = SVGWriter(capacity: 1 + round % 80)
            var expected: [UInt8] = []
            for _ in 0..<(1 + generator.next(60)) {
                switch generator.next(7) {
                case 0:
                    let text = texts[generator.next(texts.count)]
                    writer.raw(string: text)
                    expected.append(contentsOf: text.utf8)
                case 1:
                    let text = texts[generator.next(texts.count)]
                    writer.escaped(text)
                    HTML.appendEscaped(text, to: &expected)
                case 2:
                    let number = Int(truncatingIfNeeded: generator.next()) >> generator.next(64)
                    writer.digits(number)
                    expected.append(contentsOf: String(number).utf8)
                case 3:
                    let (x, y) = (generator.next(4_000) - 2_000, generator.next(4_000) - 2_000)
                    writer.path("Q", x, y)
                    expected.append(contentsOf: "Q\(x),\(y)".utf8)
                case 4:
                    let length = generator.next(expected.count + 1)
                    writer.truncate(to: length)
                    expected.removeSubrange(length...)
                case 5:
                    writer.element("rect", ["class": "a<b", "x": .number(round), "d": .text(texts[round % texts.count])])
                    expected.append(contentsOf: "<rect class=\"a&lt;b\" x=\"\(round)\" d=\"".utf8)
                    HTML.appendEscaped(texts[round % texts.count], to: &expected)
                    expected.append(contentsOf: "\"/>".utf8)
                default:
                    var other = SVGWriter(capacity: 1)
                    other.raw("<g>")
                    writer.raw(other)
                    expected.append(contentsOf: "<g>".utf8)
                }
                #expect(writer.count == expected.count)
            }
            #expect(writer.bytes == expected, "round \(round)")
        }
    }

    /// The template renderer's edits of its output (indentation put before a piece already
    /// written, a byte read back) do to `OutputBytes` what they do to an Array.
    @Test func outputBytesInsertAndReadAsAnArrayDoes() {
        var generator = SplitMix(seed: 22)
        for round in 0..<400 {
            var out = OutputBytes(capacity: 1 + round % 50)
            var expected: [UInt8] = []
            for _ in 0..<(1 + generator.next(40)) {
                let piece = (0..<generator.next(30)).map { _ in UInt8(0x61 + generator.next(26)) }
                if generator.next(3) == 0 {
                    let at = generator.next(expected.count + 1)
                    out.insert(contentsOf: piece, at: at)
                    expected.insert(contentsOf: piece, at: at)
                } else {
                    out.append(contentsOf: piece)
                    expected.append(contentsOf: piece)
                }
                if !expected.isEmpty {
                    let at = generator.next(expected.count)
                    #expect(out[at] == expected[at])
                }
            }
            #expect(out.bytes == expected, "round \(round)")
        }
    }

    /// A constant attribute value is copied as it is only when nothing in it is escaped or
    /// marked: the others take the escaper.
    @Test func constantValuesAreEscapedWhenTheyNeedIt() {
        let constants: [(StaticString, String)] = [
            ("msg-line", "msg-line"), ("a&b", "a&amp;b"), ("\"q\"", "&quot;q&quot;"), ("it's", "it&#39;s"), ("x>y", "x&gt;y"),
            ("\u{202E}", "⟦U+202E⟧"), ("é", "é"), ("\t", "\t"), ("", ""), ("<", "&lt;"),
        ]
        for (constant, written) in constants {
            var writer = SVGWriter()
            writer.element("g", ["class": .literal(constant)])
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "<g class=\"\(written)\"/>")
        }
    }
}
