import FlowModel
import Testing
import TestSupport

/// `JSONNode.parse` reads plain JSON with `StrictJSON` and everything else with Foundation's
/// decoder: whichever reads a text, the value must be the decoder's.
@Suite struct JSONParseTests {
    /// Generated texts: valid JSON of every kind of value, names equal as Strings but not as
    /// scalars, repeated names, numbers at the edges of Int64 and Double, escapes (lone
    /// surrogates, NUL), and broken copies of them (a byte dropped, doubled or replaced).
    @Test func strictReadingIsTheDecoders() {
        var generator = SplitMix(seed: 21)
        let numbers = ["0", "-0", "1", "-1", "10", "1.0", "-0.0", "1.5", "-2.25e3", "1e2", "1E-2", "0.1", "2e-323", "1e-400",
                       "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                       "12345678901234567890", "8999999999999999999", "1e308", "1e309", "-1e400", "01", "1.", ".5", "-", "+1", "1e"]
        let pieces = ["a", "Z", " ", "é", "e\u{301}", "\\u00e9", "e\\u0301", "\\n", "\\\"", "\\\\", "\\/", "\\ud83d\\ude00", "\\ud800",
                      "\\u0000", "\u{1}", "\t", "👍", "\\x", "\u{2028}"]
        let names = ["a", "b", "é", "e\u{301}", "\\u00e9", "a", "", "B", "ş"]
        func string() -> String {
            "\"" + (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() + "\""
        }
        func space() -> String { ["", "", " ", "\n", "\t ", "\r\n"].randomElement(using: &generator)! }
        func value(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &generator) {
            case 0: return ["null", "true", "false", "nul", "True"].randomElement(using: &generator)!
            case 1, 2: return numbers.randomElement(using: &generator)!
            case 3: return string()
            case 4: return "[" + (0..<Int.random(in: 0...4, using: &generator)).map { _ in space() + value(depth + 1) + space() }.joined(separator: ",") + "]"
            default:
                let members = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                    space() + "\"" + names.randomElement(using: &generator)! + "\"" + space() + ":" + space() + value(depth + 1)
                }
                return "{" + members.joined(separator: ",") + space() + "}"
            }
        }
        var strictlyRead = 0
        for index in 0..<20_000 {
            var bytes = Array((space() + value(0) + space()).utf8)
            if index % 4 == 3, !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch index % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(bytes[at], at: at)
                default: bytes[at] = [0x22, 0x2C, 0x7B, 0x5D, 0x30, 0xFF, 0x00].randomElement(using: &generator)!
                }
            }
            let expected = JSONNode.decoded(bytes)
            #expect(JSONNode.parse(bytes) == expected, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if expected != nil, (try? StrictJSON.parse(bytes)) != nil { strictlyRead += 1 }
        }
        // The strict reading is what most of these texts take (else this compares the decoder
        // with itself).
        #expect(strictlyRead > 5_000)
    }

    /// Bodies as specs write them.
    @Test func bodiesReadAsTheDecoderReadsThem() {
        let bodies = [
            #"{"grant_type": "authorization_code", "code": "abc", "redirect_uri": "https://app.example/cb"}"#,
            #"{"id_token": "eyJ.x.y", "user": {"name": {"firstName": "Ada", "lastName": "L"}, "email": "a@b.c"}, "n": [1, 2.5, -3e2]}"#,
            #"[{"b": 1, "a": 2}, {"a": null, "b": true}]"#, #""text""#, "42", "true", "null",
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            #expect(JSONNode.parse(bytes) == JSONNode.decoded(bytes), "\(body)")
            #expect(JSONNode.parse(bytes) != nil)
        }
    }
}
