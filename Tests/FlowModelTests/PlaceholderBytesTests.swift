import Testing
import TestSupport
@testable import FlowModel

/// `Placeholders.names` and `fill` on ASCII bytes find and replace what the Character search
/// found and replaced (written out below, as it was).
@Suite struct PlaceholderBytesTests {
    static func referenceFill(_ text: String, _ value: (String) -> String?) -> (names: [String], filled: String) {
        var names: [String] = []
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
            out += rest[..<open.lowerBound]
            var name = rest[open.upperBound..<close.lowerBound]
            while name.first == " " { name = name.dropFirst() }
            while name.last == " " { name = name.dropLast() }
            names.append(String(name))
            out += value(String(name)) ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return (names, out + rest)
    }

    @Test func bytesFindWhatCharactersFound() {
        let alphabet = ["{{", "}}", "{", "}", " ", "a", "provider.url", "tenant_id", "x", "\r\n", "/", "{{ tenant_id }}", "é", "\u{301}", "{\u{301}"]
        var random = SplitMix(seed: 61)
        let values = ["tenant_id": "common", "a": "A{{x}}", "": "empty"]
        var ascii = 0
        for _ in 0..<20000 {
            let text = (0..<random.next(12)).map { _ in alphabet[random.next(alphabet.count)] }.joined()
            let reference = Self.referenceFill(text) { values[$0] }
            #expect(Placeholders.names(in: text) == reference.names, "\(text.debugDescription)")
            #expect(Array(Placeholders.fill(text) { values[$0] }.unicodeScalars) == Array(reference.filled.unicodeScalars), "\(text.debugDescription)")
            if Placeholders.asciiPieces(text) != nil, !reference.names.isEmpty { ascii += 1 }
        }
        #expect(ascii > 1000, "\(ascii) ASCII texts with placeholders")
    }
}
