import Testing
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
        var state: UInt64 = 61
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % bound
        }
        let values = ["tenant_id": "common", "a": "A{{x}}", "": "empty"]
        var ascii = 0
        for _ in 0..<20000 {
            let text = (0..<next(12)).map { _ in alphabet[next(alphabet.count)] }.joined()
            let reference = Self.referenceFill(text) { values[$0] }
            #expect(Placeholders.names(in: text) == reference.names, "\(text.debugDescription)")
            #expect(Array(Placeholders.fill(text) { values[$0] }.unicodeScalars) == Array(reference.filled.unicodeScalars), "\(text.debugDescription)")
            if Placeholders.asciiPieces(text) != nil, !reference.names.isEmpty { ascii += 1 }
        }
        #expect(ascii > 1000, "\(ascii) ASCII texts with placeholders")
    }
}
