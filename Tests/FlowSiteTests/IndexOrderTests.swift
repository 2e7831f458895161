import Foundation
import Testing
@testable import FlowModel
@testable import FlowSite

/// The index's order, and the byte keys it is sorted by.
@Suite("Index order")
struct IndexOrderTests {
    /// Keys of several parts order like the tuples of their parts, whatever bytes the texts
    /// hold (0 and 1 included, prefixes of each other), compared here with Swift's own tuple
    /// and byte-array comparison.
    @Test func byteKeysOrderLikeTheirParts() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0, 1, 2, 0x41, 0x61, 0xC3, 0xA9, 0xFF]
        func text() -> [UInt8] { (0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! } }
        for _ in 0..<200 {
            let items = (0..<40).map { _ in (Int.random(in: -3...3, using: &generator), text(), text()) }
            var keys = ByteKeys()
            for item in items {
                keys.begin()
                keys.append(item.0)
                keys.append(String(decoding: item.1, as: UTF8.self))
                keys.append(String(decoding: item.2, as: UTF8.self))
            }
            // The texts as the keys see them (invalid UTF-8 repaired by String).
            let decoded = items.map { ($0.0, Array(String(decoding: $0.1, as: UTF8.self).utf8), Array(String(decoding: $0.2, as: UTF8.self).utf8)) }
            let sorted = keys.sortedPositions().map { decoded[$0] }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                let inOrder = a.0 != b.0 ? a.0 < b.0
                    : a.1 != b.1 ? a.1.lexicographicallyPrecedes(b.1)
                    : a.2 == b.2 || a.2.lexicographicallyPrecedes(b.2)
                #expect(inOrder, "\(a) before \(b)")
            }
        }
    }

    /// The eight-bytes-at-a-time test for bytes 0 and 1 says what a byte-by-byte scan says, at
    /// every position of buffers longer than a word, next to the bytes whose borrows could
    /// mislead it (2, 0x80, 0x81, 0xFF).
    @Test func zeroOrOneFoundEightBytesAtATime() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0, 1, 2, 3, 0x41, 0x7F, 0x80, 0x81, 0xC3, 0xFE, 0xFF]
        var found = 0
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...40, using: &generator)
            // Mostly bytes above 1, so that a 0 or a 1 is often alone, in any position.
            let bytes: [UInt8] = (0..<count).map { _ in
                Int.random(in: 0..<12, using: &generator) == 0 ? alphabet[Int.random(in: 0...1, using: &generator)]
                    : alphabet[Int.random(in: 2..<alphabet.count, using: &generator)]
            }
            let expected = bytes.contains { $0 <= 1 }
            if expected { found += 1 }
            #expect(bytes.withUnsafeBufferPointer { ByteKeys.holdsZeroOrOne($0) } == expected, "\(bytes)")
        }
        #expect(found > 1_000 && found < 4_000)
    }

    /// Whole-text keys that share a long start, are prefixes of each other, or are equal sort
    /// as `sorted()` sorts them (ASCII: byte order is String order), and equal keys keep their
    /// positions.
    @Test func byteKeysSortSharedStartsAndTies() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["\u{0}", "a", "b", "0", "9", "-", "/", "\u{7F}"]
        for _ in 0..<200 {
            let start = String(repeating: "/tmp/flows/flow-", count: Int.random(in: 0...2, using: &generator))
            let texts = (0..<Int.random(in: 2...60, using: &generator)).map { _ in
                start + String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            }
            #expect(texts.sortedByBytes() == texts.sorted())
            var keys = ByteKeys()
            for text in texts { keys.appendKey(bytesOf: text) }
            let positions = keys.sortedPositions()
            for (a, b) in zip(positions, positions.dropFirst()) where texts[a] == texts[b] {
                #expect(a < b, "equal keys \(a) and \(b) out of order")
            }
        }
    }

    /// Navigation first, then groups by their original's title, original before translations,
    /// translations in the configured language order.
    @Test func navigationThenTitlesThenLanguages() throws {
        let scratch = try Scratch()
        try scratch.write("site/site.yml", "title: T\nnavigation: [zeta]\nlanguages: [en, tr, vi]\n")
        try scratch.write("flows/z.md", sampleSpec(id: "zeta", title: "Zeta"))
        try scratch.write("flows/a.md", sampleSpec(id: "alpha", title: "Alpha"))
        try scratch.write("flows/a-vi.md", sampleSpec(id: "alpha-vi", title: "Ấlpha", lang: "vi", translationOf: "alpha"))
        try scratch.write("flows/a-tr.md", sampleSpec(id: "alpha-tr", title: "Älpha", lang: "tr", translationOf: "alpha"))
        try scratch.write("flows/m.md", sampleSpec(id: "mid", title: "Mid"))
        let report = try scratch.build()
        #expect(report.succeeded, "\(report.diagnostics)")
        let index = try scratch.read("index.html")
        func position(_ id: String) throws -> String.Index { try #require(index.range(of: "href=\"flows/\(id).html\"")).lowerBound }
        #expect(try position("zeta") < position("alpha"))
        #expect(try position("alpha") < position("mid"))
        // One card per group: the translations are links on alpha's card, tr before vi.
        #expect(try position("alpha") < position("alpha-tr"))
        #expect(try position("alpha-tr") < position("alpha-vi"))
        #expect(try position("alpha-vi") < position("mid"))
    }
}
