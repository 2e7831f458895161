import Testing
import TestSupport
import FlowModel
@testable import FlowParser

/// `HTTPBlockParser.parseASCII` gives what the Character reading gives, or leaves the block to
/// it: never a different request, never a request where the Character reading reports a problem.
@Suite struct HTTPBlockBytesTests {
    /// Blocks made of pieces of request lines, headers, placeholders and bodies (valid ones
    /// mostly, with spaces, tabs, form feeds, empty lines and broken pieces among them), and a
    /// share with non-ASCII text or carriage returns, which must go to the Character reading.
    static func blocks(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix(seed: seed)
        let requestLines = ["POST /api/v1/login", "GET /users/{{user.id}}", "PUT  /a?b=c  HTTP/1.1", "DELETE /x HTTP/2", "get /lower",
                            "POST", "POST /a /b /c", "PATCH a/b", "OPTIONS /x HTTX", "HEAD\t/tab", " GET /lead", "GET /{{ spaced }}"]
        let headerLines = ["Content-Type: application/json", "X_Trace-1:  v ", "Authorization: Bearer {{token}}", "Bad Header: x",
                           ": empty", "NoColon", "A:\tb\u{0C}", "Accept:", "X-{{n}}: v", "X: {{unterminated", "X: {{}}", "X: {{a b}}"]
        let bodyLines = ["{\"a\": \"{{code}}\"}", "  indented", "", " \t ", "{{provider.id_token}} {{x-y.z_1}}", "tail  \u{0B}", "}}{{",
                         "{\"name\": \"Nguyễn Văn An\", \"e\": \"{{provider.email}}\"}", "Iğdır {{şehir}} {{city}}", "không-phải-số",
                         "end\u{A0}", "x\u{0600} ", "ş \u{301}", "{{ \u{A0}name}}", "👍{{a}}👍"]
        let odd = ["é", "\r", "\r\n", "\u{301}", "👍", "\u{85}"]
        // Half the picks from the first, valid, pieces of each list.
        func pick(_ pieces: [String], valid: Int) -> String { pieces[random.next(2) == 0 ? random.next(valid) : random.next(pieces.count)] }
        return (0..<count).map { _ in
            var lines: [String] = []
            for _ in 0..<random.next(2) { lines.append(["", "  ", "\t"][random.next(3)]) }
            lines.append(pick(requestLines, valid: 4))
            for _ in 0..<random.next(4) { lines.append(pick(headerLines, valid: 3)) }
            if random.next(3) > 0 {
                lines.append(["", " ", "\t\u{0C}"][random.next(3)])
                for _ in 0..<random.next(4) { lines.append(pick(bodyLines, valid: 10)) }
            }
            var text = lines.joined(separator: "\n") + ["", "\n", "\n\n", " \n"][random.next(4)]
            if random.next(5) == 0 {
                let position = text.index(text.startIndex, offsetBy: random.next(text.count + 1))
                text.insert(contentsOf: odd[random.next(odd.count)], at: position)
            }
            return text
        }
    }

    @Test func bytesReadWhatCharactersRead() {
        let source = SourceText(file: "t.md", bytes: Array(String(repeating: "x\n", count: 40).utf8))
        var byBytes = 0, left = 0, nonASCIIBodies = 0
        for text in Self.blocks(count: 12000, seed: 21) {
            let parser = HTTPBlockParser(block: CodeBlockContent(literal: text, fenceLine: 3, fenceColumn: 2, source: source))
            var diagnostics: [Diagnostic] = []
            let reference = parser.parseCharacters(diagnostics: &diagnostics)
            guard let fast = parser.parseASCII() else { left += 1; continue }
            byBytes += 1
            if let body = fast.body, !body.utf8.allSatisfy({ $0 < 0x80 }) { nonASCIIBodies += 1 }
            #expect(fast == reference, "\(text.debugDescription)")
            #expect(diagnostics.isEmpty, "\(text.debugDescription): read by bytes despite \(diagnostics.map(\.message))")
        }
        // Both ways are exercised: most valid blocks by bytes, every broken one by Characters.
        #expect(byBytes > 1000, "\(byBytes) blocks read by bytes")
        #expect(left > 1000, "\(left) blocks left to the Character reading")
        #expect(nonASCIIBodies > 300, "\(nonASCIIBodies) bodies with other scripts read by bytes")
    }

    /// A spec's blocks read through `parse` (bytes where they can be) give the same requests and
    /// diagnostics as the Character reading alone.
    @Test func parseIsTheCharacterReading() {
        let source = SourceText(file: "t.md", bytes: Array(String(repeating: "x\n", count: 40).utf8))
        for text in Self.blocks(count: 2000, seed: 22) {
            let parser = HTTPBlockParser(block: CodeBlockContent(literal: text, fenceLine: 1, fenceColumn: 1, source: source))
            var viaParse: [Diagnostic] = [], viaCharacters: [Diagnostic] = []
            #expect(parser.parse(diagnostics: &viaParse) == parser.parseCharacters(diagnostics: &viaCharacters), "\(text.debugDescription)")
            #expect(viaParse.map(\.message) == viaCharacters.map(\.message), "\(text.debugDescription)")
            #expect(viaParse.map(\.location) == viaCharacters.map(\.location), "\(text.debugDescription)")
        }
    }
}
