import FlowModel
import Foundation
import Testing
import TestSupport

/// The one JSON string writer: RFC 8259 escapes, and the script-safe variant pages embed.
@Suite struct JSONQuoteTests {
    @Test func escapesWhatRFC8259Requires() {
        #expect(JSONNode.quote("plain é 🙂") == "\"plain é 🙂\"")
        #expect(JSONNode.quote("a\"b\\c\nd\re\tf\u{1}g") == #""a\"b\\c\nd\re\tf\u0001g""#)
        #expect(JSONNode.quote("\u{8}\u{C}") == #""\b\f""#, "backspace and form feed take their short escapes")
        // Token bytes go through the same writer.
        #expect(JSONNode.object(JSONObject([("k", .string("\u{8}<"))])).jsonString() == #"{"k":"\b<"}"#)
        // Outside scripts, < > & and U+2028 stay as they are.
        #expect(JSONNode.quote("</script>&\u{2028}") == "\"</script>&\u{2028}\"")
    }

    @Test func scriptSafeAlsoEscapesWhatEndsAScript() {
        #expect(JSONNode.quote("</script>&\u{2028}\u{2029}—", scriptSafe: true) == #""\u003c/script\u003e\u0026\u2028\u2029—""#)
    }

    /// Every output parses back, with Foundation's parser, to the text it quoted.
    @Test func roundTripsThroughFoundation() throws {
        for text in ["", "\u{0}\u{1F}\u{7F}", "</b>&\u{2028}x", "\"\\", "Đăng nhập 15777000 C12"] {
            for scriptSafe in [false, true] {
                let quoted = JSONNode.quote(text, scriptSafe: scriptSafe)
                let back = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String
                #expect(back == text, "\(quoted)")
            }
        }
    }

    /// The writer passes sixteen clean bytes at a time (`ByteBlocks.skip`): it writes what
    /// quoting scalar by scalar writes, wherever in a block the byte to escape falls (long clean
    /// runs of one, two and three-byte scalars between, lead bytes E2 that are and are not
    /// U+2028/U+2029), script-safe or not.
    @Test func quotingIsTheScalarQuoting() {
        let alphabet = ["a", "bcdefgh", String(repeating: "x", count: 16), String(repeating: "y", count: 17), "ạạạạạ", "é", "\"", "\\", "\n", "\r", "\t",
                        "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "<", ">", "&", "\u{2028}", "\u{2029}", "\u{2027}", "—", "→", "👍", " "]
        var generator = SplitMix(seed: 21)
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            for scriptSafe in [false, true] {
                var reference = "\""
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": reference += "\\\""
                    case "\\": reference += "\\\\"
                    case "\n": reference += "\\n"
                    case "\r": reference += "\\r"
                    case "\t": reference += "\\t"
                    case "\u{8}": reference += "\\b"
                    case "\u{C}": reference += "\\f"
                    case _ where scalar.value < 0x20: reference += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                    case "<" where scriptSafe: reference += "\\u003c"
                    case ">" where scriptSafe: reference += "\\u003e"
                    case "&" where scriptSafe: reference += "\\u0026"
                    case "\u{2028}" where scriptSafe: reference += "\\u2028"
                    case "\u{2029}" where scriptSafe: reference += "\\u2029"
                    default: reference.unicodeScalars.append(scalar)
                    }
                }
                reference += "\""
                #expect(JSONNode.quote(text, scriptSafe: scriptSafe) == reference, "\(text.debugDescription)")
            }
        }
    }
}
