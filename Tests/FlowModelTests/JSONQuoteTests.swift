import FlowModel
import Foundation
import Testing

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
}
