import Testing
@testable import FlowModel

/// The one header lookup (RFC 9110 §5.1: field names are case-insensitive).
@Suite struct HeaderLookupTests {
    @Test func namesCompareCaseInsensitivelyForLettersOnly() {
        #expect("Content-Type".caseInsensitiveEquals("content-TYPE"))
        #expect(!"Content-Type".caseInsensitiveEquals("Content-Typ"))
        // '[' (0x5B) and '{' (0x7B) differ in the case bit but are not letters.
        #expect(!"a[".caseInsensitiveEquals("a{"))
        #expect(!"@".caseInsensitiveEquals("`"))
        // Not ASCII: compared exactly.
        #expect(!"É".caseInsensitiveEquals("é"))
    }

    @Test func agreesWithLowercasingOnEveryPrintableASCIIPair() {
        let printable = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
        for a in printable {
            for b in printable {
                let x = "X-\(a)", y = "x-\(b)"
                #expect(x.caseInsensitiveEquals(y) == (x.lowercased() == y.lowercased()), "\(x) vs \(y)")
            }
        }
    }

    @Test func theFirstFieldWithTheNameWins() {
        let fields = [HeaderField(name: "Set-Cookie", value: "a=1"), HeaderField(name: "set-cookie", value: "b=2")]
        #expect(fields.value(of: "SET-COOKIE") == "a=1")
        #expect(fields.value(of: "Cookie") == nil)
    }
}
