import Testing
import FlowModel
import TestSupport
@testable import FlowParser

/// The parser's byte-level text helpers give what the Character-level code they replace gave.
@Suite struct TextFastPathTests {
    static func texts(from alphabet: [String], count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in (0..<(next() % 20)).map { _ in alphabet[next() % alphabet.count] }.joined() }
    }

    @Test func codeLinesSplitAsCharactersDo() {
        let alphabet = ["a", "é", " ", "\n", "\r", "\r\n", "\u{301}", "\n\u{301}", "{", "👍"]
        var byteSplits = 0
        for text in Self.texts(from: alphabet, count: 5000, seed: 7) {
            let characters = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(CodeBlockContent.splitLines(text) == characters, "\(text.debugDescription)")
            // A block's lines: the last empty one dropped, a last "\r" Character cut.
            var kept = characters
            if kept.last == "" { kept.removeLast() }
            let block = CodeBlockContent(literal: text, fenceLine: 1, fenceColumn: 1, source: SourceText(file: "t.md", bytes: []))
            #expect(block.lines == kept.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }, "\(text.debugDescription)")
            if !text.utf8Contains("\r\n") { byteSplits += 1 }
        }
        #expect(byteSplits > 1000, "the byte path is exercised")
    }

    /// `SourceText.column(of:onLine:from:)` on bytes gives the code-point column the search on
    /// Unicode scalars it replaced gave (written out below), for every start column.
    @Test func columnSearchIsAScalarSearch() {
        let alphabet = ["a", "-", ">", "→", "é", "e", "\u{301}", " ", "`", "👍"]
        for text in Self.texts(from: alphabet, count: 1500, seed: 9) {
            let source = SourceText(file: "t.md", bytes: Array(("x\n" + text + "\ny").utf8))
            for needle in ["→", "->", "é", "e\u{301}", "\u{301}", "", "a a", "`", "👍 a"] {
                for from in -1...(text.unicodeScalars.count + 2) {
                    #expect(source.column(of: needle, onLine: 2, from: from) == Self.scalarColumn(of: needle, in: text, from: from),
                            "\(text.debugDescription) \(needle.debugDescription) \(from)")
                }
            }
        }
    }

    /// `SourceText.text(lines:_:)` joins the lines' bytes as joining their Strings did.
    @Test func linesJoinAsStringsDo() {
        let alphabet = ["a", "é", " ", "\n", "\r\n", "\r", "\u{301}", "👍", "\n\n"]
        for text in Self.texts(from: alphabet, count: 1500, seed: 10) {
            let source = SourceText(file: "t.md", bytes: Array(text.utf8))
            for first in -1...(source.lineCount + 1) {
                for last in (first - 1)...(source.lineCount + 2) {
                    let lower = max(1, first), upper = min(last, source.lineCount)
                    let joined = lower <= upper ? (lower...upper).map(source.lineText).joined(separator: "\n") : ""
                    #expect(source.text(lines: first, last) == joined, "\(text.debugDescription) \(first) \(last)")
                }
            }
        }
    }

    /// `SourceText.lineBytes(_:fromColumn:)` is the line's scalars from that column on.
    @Test func lineBytesFromAColumnAreTheScalarsFromIt() {
        let alphabet = ["a", "é", "e\u{301}", " ", "👍", "\r\n", "\n", "ş", "\t"]
        for text in Self.texts(from: alphabet, count: 1500, seed: 12) {
            let source = SourceText(file: "t.md", bytes: Array(text.utf8))
            for line in 0...(source.lineCount + 1) {
                let scalars = Array(source.lineText(line).unicodeScalars)
                for column in -1...(scalars.count + 2) {
                    let expected = String(String.UnicodeScalarView(scalars.dropFirst(max(column - 1, 0))))
                    #expect(String(decoding: source.lineBytes(line, fromColumn: column), as: UTF8.self) == expected, "\(text.debugDescription) \(line) \(column)")
                }
            }
        }
    }

    static func scalarColumn(of needle: String, in line: String, from: Int) -> Int? {
        let scalars = Array(line.unicodeScalars)
        let target = Array(needle.unicodeScalars)
        guard !target.isEmpty, scalars.count >= target.count else { return nil }
        var index = max(from - 1, 0)
        while index + target.count <= scalars.count {
            if scalars[index..<(index + target.count)].elementsEqual(target) { return index + 1 }
            index += 1
        }
        return nil
    }

    @Test func utf8ContainsIsAScalarSearch() {
        let alphabet = ["a", "-", ">", "→", "é", "e", "\u{301}", " "]
        for text in Self.texts(from: alphabet, count: 4000, seed: 8) {
            for needle in ["→", "->", "é", "e\u{301}", "", "a a"] {
                let scalars = Array(text.unicodeScalars), target = Array(needle.unicodeScalars)
                let expected = target.isEmpty || (scalars.count >= target.count
                    && (0...(scalars.count - target.count)).contains { scalars[$0..<($0 + target.count)].elementsEqual(target) })
                #expect(text.utf8Contains(needle) == expected, "\(text.debugDescription) \(needle.debugDescription)")
            }
        }
    }

    /// `utf8Contains(byte:)` is the byte search over `utf8`, for small and large strings,
    /// bridged-looking substrings made into Strings, and every byte value.
    @Test func utf8ContainsByteIsTheByteSearch() {
        let alphabet = ["a", "<", "{", "'", ":", "→", "é", "\u{301}", " ", "\n", String(repeating: "x", count: 20)]
        for text in Self.texts(from: alphabet, count: 3000, seed: 9) + [String(decoding: Array(0...127), as: UTF8.self)] {
            for byte: UInt8 in [0x3C, 0x7B, 0x27, 0x3A, 0x0A, 0x00, 0x80, 0xCC, 0xE2, 0x78] {
                #expect(text.utf8Contains(byte: byte) == text.utf8.contains(byte), "\(text.debugDescription) \(byte)")
                // And on a slice of the bytes, not from its start: `ArraySlice.containsByte`.
                let bytes = Array(text.utf8)
                let slice = bytes[(bytes.count / 3)...]
                #expect(slice.containsByte(byte) == slice.contains(byte), "\(text.debugDescription) \(byte)")
            }
            #expect(text.isASCII == text.utf8.allSatisfy { $0 < 0x80 }, "\(text.debugDescription)")
        }
    }

    /// The render memo keys prose by its bytes: a canonically equivalent spelling is rendered,
    /// not answered with the other spelling's HTML (String keys compared them equal).
    @Test func theRenderMemoKeepsEachSpellingsBytes() {
        let composed = "Đăng nhập thất bại é", decomposed = "Đăng nhập thất bại e\u{301}"
        #expect(composed == decomposed, "Swift compares them equal")
        #expect(MarkdownRenderer.html(source: composed) == "<p>" + composed + "</p>\n")
        #expect(Array(MarkdownRenderer.html(source: decomposed).utf8) == Array(("<p>" + decomposed + "</p>\n").utf8))
        #expect(Array(MarkdownRenderer.plainText(source: decomposed).utf8) == Array((decomposed + "\n").utf8))
    }

    @Test func bytePartsAreScalarParts() {
        let alphabet = ["a", "-", ">", "->", "→", "é", "e\u{301}", " ", "`", "ş"]
        for text in Self.texts(from: alphabet, count: 4000, seed: 9) {
            for separator in ["->", "→", " as ", "e"] {
                // The scalar-by-scalar split this replaced.
                var parts: [String] = [], current = ""
                var scalars = Array(text.unicodeScalars)[...]
                let target = Array(separator.unicodeScalars)
                while !scalars.isEmpty {
                    if scalars.starts(with: target) { parts.append(current); current = ""; scalars = scalars.dropFirst(target.count) }
                    else { current.unicodeScalars.append(scalars.removeFirst()) }
                }
                parts.append(current)
                #expect(text.components(separatedByString: separator).map { Array($0.unicodeScalars) } == parts.map { Array($0.unicodeScalars) },
                        "\(text.debugDescription) \(separator.debugDescription)")
            }
        }
    }

    @Test func trimmingSkipsOnlyTextWithNothingToTrim() {
        let alphabet = ["a", "!", "~", " ", "\n", "\u{A0}", "\u{2003}", "\u{301}", "\u{600}", "é", "\r\n", "\u{85}", "x",
                        "\t", "\r", "\u{B}", "ạ", "ố", "\u{1EFF}", "\u{2FF}", "\u{300}", "\u{200D}", "\u{2028}", "\u{3000}", "©", "👍", "\u{1F1FB}", "ş", "\u{E33}"]
        for text in Self.texts(from: alphabet, count: 20000, seed: 10) {
            var slice = Substring(text)
            while let last = slice.last, last.isWhitespace { slice.removeLast() }
            #expect(Array(text.trimmingTrailingWhitespace().unicodeScalars) == Array(String(slice).unicodeScalars), "\(text.debugDescription)")
            while let first = slice.first, first.isWhitespace { slice.removeFirst() }
            #expect(Array(text.trimmingCharacters().unicodeScalars) == Array(String(slice).unicodeScalars), "\(text.debugDescription)")
            #expect(Markdown(source: text, location: SourceLocation(file: "t", line: 1, column: 1)).isEmpty == text.allSatisfy(\.isWhitespace),
                    "\(text.debugDescription)")
        }
    }

    /// Replacing and finding text on bytes: every occurrence, exactly, as the split on the
    /// separator (held to a scalar-by-scalar split above) finds them.
    @Test func replacingAllReplacesEveryOccurrence() {
        let alphabet = ["a", "'", "{n}", "{", "n", "}", "<", "é", "\u{301}", "ạ", " ", "notification", "Notif"]
        for text in Self.texts(from: alphabet, count: 5000, seed: 12) {
            for (target, replacement) in [("'", "'\\''"), ("{n}", "7"), ("<", "\\<"), ("notification", "")] {
                let parts = text.components(separatedByString: target)
                #expect(text.replacingAll(target, with: replacement) == parts.joined(separator: replacement), "\(text.debugDescription)")
                #expect(text.utf8Contains(target) == (parts.count > 1), "\(text.debugDescription)")
                #expect(!text.replacingAll(target, with: replacement).utf8Contains(target) || replacement.utf8Contains(target), "\(text.debugDescription)")
            }
        }
        #expect("a'b'".replacingAll("'", with: "'\\''") == "a'\\''b'\\''")
        #expect("é'\u{301}".replacingAll("'", with: "_") == "é_\u{301}", "a quote before a combining mark is still a quote")
        #expect(!"abc".utf8Contains("abcd") && "abc".utf8Contains("") && "xnotificationy".utf8Contains("notification"))
    }

    @Test func scalarSlicesMakeTheSameStrings() {
        let alphabet = ["a", "é", "ş", "👍", "\u{301}", "ạ", " ", "\u{10FFFF}", "\u{7FF}", "\u{800}"]
        for text in Self.texts(from: alphabet, count: 3000, seed: 11) {
            let scalars = Array(text.unicodeScalars)
            for start in [0, scalars.count / 2, scalars.count] {
                #expect(Array(String(scalars: scalars[start...]).utf8) == Array(String(String.UnicodeScalarView(scalars[start...])).utf8))
            }
        }
    }

    /// The one-pass check says "UTF-8 without NUL" exactly when the standard library's
    /// validator accepts the bytes and none is NUL: random bytes around every boundary of the
    /// encoding (overlong forms, surrogates, past U+10FFFF, cut sequences), in long ASCII runs
    /// and alone; and line starts found sixteen bytes at a time are every byte after a `\n`.
    @Test func utf8CheckIsTheValidator() {
        var generator = SplitMix(seed: 15)
        let pieces: [[UInt8]] = [[0x61], [0x0A], [0x00], Array(repeating: 0x61, count: 17), [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF],
                                 [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x9F, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
                                 [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0x80, 0x80], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
                                 [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE1, 0xBA], [0xF0, 0x9F, 0x98], [0xE1, 0xBA, 0xA1],
                                 Array("Đăng nhập ạ ố → ş".utf8)]
        var valid = 0
        for _ in 0..<20000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            let expected = !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
            if expected { valid += 1 }
            #expect(bytes.withUnsafeBufferPointer { ByteBlocks.isUTF8WithoutNUL($0) } == expected, "\(bytes)")
            let source = SourceText(file: "t", bytes: bytes)
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            #expect((1...source.lineCount).map { Array(source.lineBytes($0)) } == lines, "\(bytes)")
        }
        #expect(valid > 2000)
    }

    /// `lowercasedOnBytes` is `lowercased()`: for every scalar on its own (the shortcut for
    /// scalars that do not change rests on Changes_When_Lowercased being exactly that), and for
    /// generated text in several scripts, capitals with special mappings (İ, ẞ, ǅ) included.
    @Test func byteLowercasingIsLowercased() {
        var differing = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            if text.lowercasedOnBytes() != text.lowercased() || Array(text.lowercasedOnBytes().utf8) != Array(text.lowercased().utf8) { differing += 1 }
        }
        #expect(differing == 0)
        var generator = SplitMix(seed: 31)
        let pieces = ["A", "z", "Ş", "ı", "İ", "I", "Ğ", "Ư", "Ấ", "ấ", "Đ", "ẞ", "ǅ", "Σ", "ς", "Ω", "\u{301}", " ", "→", "👍", "ABC", "Kullanıcı", "NGƯỜI"]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(Array(text.lowercasedOnBytes().utf8) == Array(text.lowercased().utf8), "\(text.debugDescription)")
        }
    }

    /// Actor ids are checked on bytes: the same answer as the scalar rule (ASCII letters and
    /// digits, `-`, `_`, `.`) for every scalar below U+0800 and for generated ids; backticks
    /// are trimmed as the Character loop trims them, combining marks after a backtick included.
    @Test func actorIDsAndBackticksOnBytes() {
        func referenceID(_ id: String) -> Bool {
            id.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" || $0 == "." }
        }
        func referenceTrim(_ text: String) -> String {
            var slice = Substring(text)
            while slice.first == "`" { slice.removeFirst() }
            while slice.last == "`" { slice.removeLast() }
            return String(slice)
        }
        for value in UInt32(0)..<0x800 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(scalar) + "b"
            #expect(FrontMatterParser.isValidActorID(text) == referenceID(text), "U+\(String(value, radix: 16))")
        }
        var generator = SplitMix(seed: 41)
        let pieces = ["a", "Z", "0", "-", "_", ".", "`", "`\u{301}", "\u{600}`", " ", "é", "ı", "→", "\u{301}"]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(FrontMatterParser.isValidActorID(text) == referenceID(text), "\(text.debugDescription)")
            #expect(Array(text.trimmingBackticks().utf8) == Array(referenceTrim(text).utf8), "\(text.debugDescription)")
        }
    }

    /// Placeholders are looked for only in text with `{{` bytes: the same references and the
    /// same diagnostics as the scan over every text's scalars.
    @Test func placeholderScanSkipsTextWithoutBraces() {
        let location: (Int) -> FlowModel.SourceLocation = { FlowModel.SourceLocation(file: "t.md", line: 1, column: $0) }
        var generator = SplitMix(seed: 43)
        let pieces = ["{", "}", "{{", "}}", "a", "_", " ", "é", "x.y", "-", "{{name}}", "{{ bad name }}", "{{é}}"]
        var found = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var diagnostics: [Diagnostic] = []
            let references = scanPlaceholders(in: text, at: location, diagnostics: &diagnostics, code: .malformedHTTP)
            // The scan as it was: over every text's scalars.
            var expectedDiagnostics: [Diagnostic] = []
            var expected: [VariableReference] = []
            let scalars = Array(text.unicodeScalars)
            var index = 0
            scan: while index + 1 < scalars.count {
                guard scalars[index] == "{", scalars[index + 1] == "{" else { index += 1; continue }
                var end = index + 2
                while end + 1 < scalars.count, !(scalars[end] == "}" && scalars[end + 1] == "}") { end += 1 }
                guard end + 1 < scalars.count else {
                    expectedDiagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: location(index + 1), message: "placeholder '{{' is never closed", hint: "write `{{name}}`"))
                    break scan
                }
                let name = String(String.UnicodeScalarView(scalars[(index + 2)..<end])).trimmingCharacters()
                if name.isEmpty || !name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "-") }) {
                    expectedDiagnostics.append(Diagnostic(.malformedHTTP, severity: .error, location: location(index + 1),
                                                          message: "'{{\(name)}}' is not a valid placeholder",
                                                          hint: "names use letters, digits, '_', '-' and '.', e.g. `{{provider.code}}`"))
                } else {
                    expected.append(VariableReference(name: name, location: location(index + 1)))
                }
                index = end + 2
            }
            #expect(references == expected, "\(text.debugDescription)")
            #expect(diagnostics.map(\.message) == expectedDiagnostics.map(\.message), "\(text.debugDescription)")
            #expect(diagnostics.map(\.location) == expectedDiagnostics.map(\.location), "\(text.debugDescription)")
            found += references.count
        }
        #expect(found > 1_000)
    }
}
