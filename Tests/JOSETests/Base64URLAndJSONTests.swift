import FlowModel
import Testing
@testable import JOSE

@Suite("Base64URL")
struct Base64URLTests {
    @Test("RFC 4648 §10 vectors, unpadded, both ways")
    func vectors() {
        let cases = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test("URL alphabet: 0xfb 0xff encodes with - and _")
    func alphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test("strict: rejects padding, standard alphabet, whitespace, impossible length, dirty tail bits",
          arguments: ["Zg==", "Zg=", "+/+/", "Zm9v\n", " Zm9v", "Zm 9v", "Z", "Zm9vY", "Zh", "Zm9", "Zm9vYh", "é"])
    func rejects(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("roundtrip of every byte value at every tail length")
    func roundtrip() {
        let bytes = (0...255).map { UInt8($0) }
        for count in 0...bytes.count {
            #expect(Base64URL.decode(Base64URL.encode(bytes.prefix(count))) == Array(bytes.prefix(count)))
        }
    }
}

@Suite("Strict JSON")
struct StrictJSONTests {
    func parse(_ text: String) throws(JSONError) -> JSONNode { try StrictJSON.parse(Array(text.utf8)) }

    @Test("values keep integer vs double, order and nesting")
    func values() throws {
        let node = try parse(#" {"exp":1300819380,"ratio":1.5,"big":1e3,"neg":-0,"s":"a\"\\\/\n\u00e9\ud83d\ude00","a":[true,false,null],"o":{}} "#)
        let object = try #require(node.objectValue)
        #expect(object.names == ["exp", "ratio", "big", "neg", "s", "a", "o"])
        #expect(object["exp"] == .int(1_300_819_380))
        #expect(object["ratio"] == .double(1.5))
        #expect(object["big"] == .double(1000))
        #expect(object["neg"] == .int(0))
        #expect(object["s"] == .string("a\"\\/\né😀"))
        #expect(object["a"] == [true, false, nil])
        #expect(object["o"] == .object(JSONObject()))
        #expect(try parse("9223372036854775807") == .int(Int64.max))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test("duplicate member names are rejected, also when spelled with escapes")
    func duplicates() {
        #expect(throws: JSONError.duplicateMember("aud")) { try parse(#"{"aud":"a","aud":"b"}"#) }
        #expect(throws: JSONError.duplicateMember("a")) { try parse(#"{"x":{"a":1,"\u0061":2}}"#) }
        // Canonically equivalent but different scalars are different names.
        #expect(throws: Never.self) { try parse("{\"\u{e9}\":1,\"e\u{301}\":2}") }
    }

    @Test("rejects malformed input", arguments: [
        #"{"a":1} x"#, #"{"a":1,}"#, "[1,]", "01", "1.", ".5", "-", "1e", "+1", "NaN", "1e400",
        #"{'a':1}"#, #"{"a" 1}"#, "tru", "\"\u{01}\"", #""\x""#, #""\ud800""#, #""\udc00\ud800""#, "", "   ",
        #"{"a":1"#, "\"abc",
    ])
    func malformed(_ text: String) {
        #expect(throws: JSONError.self) { try parse(text) }
    }

    @Test("rejects invalid UTF-8 in strings")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xFF, 0x22]] {
            #expect(throws: JSONError.invalidUTF8(offset: 0)) { try StrictJSON.parse(bytes) }
        }
    }

    @Test("depth 64 is accepted, 65 is not")
    func depth() throws {
        _ = try parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        #expect(throws: JSONError.tooDeep(limit: 64)) {
            try parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
        }
        #expect(throws: JSONError.tooDeep(limit: 64)) {
            try parse(String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65))
        }
    }

    @Test("serializer: compact, caller's order, duplicates kept, escapes, roundtrip")
    func serialize() throws {
        let payload: JSONObject = [
            "iss": "https://appleid.apple.com", "aud": "com.example.app", "aud": "com.other.app",
            "exp": 1_300_819_380, "ratio": 0.5, "ok": true, "none": nil, "s": "q\"\\\n\u{01}é/",
        ]
        let text = payload.jsonString()
        #expect(text == #"{"iss":"https://appleid.apple.com","aud":"com.example.app","aud":"com.other.app","exp":1300819380,"ratio":0.5,"ok":true,"none":null,"s":"q\"\\\n\u0001é/"}"#)
        #expect(throws: JSONError.duplicateMember("aud")) { try StrictJSON.parse(payload.jsonBytes()) }

        var unique = payload
        unique["aud"] = nil
        unique["aud"] = ["com.example.app"]
        #expect(unique.names.last == "aud")
        #expect(try StrictJSON.parse(unique.jsonBytes()) == .object(unique))
        #expect(JSONNode.double(.infinity).jsonString() == "null")
        #expect(JSONNode.double(1e21).jsonString() == "1e+21")
    }
}
