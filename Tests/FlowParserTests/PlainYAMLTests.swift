import Foundation
import Testing
import TestSupport
import Yams
@testable import FlowParser

/// `PlainYAML` builds the tree Yams composes, or leaves the text to Yams: on generated documents
/// (the subset's constructs and the ones next to it: tabs, comments, quotes with escapes,
/// anchors, multi-line plain scalars, duplicate keys, blank lines in block scalars, no final
/// line break), every tree it builds equals `Yams.compose(yaml:, .basic, .default)`'s, node by
/// node: kind, text, tag, style and mark.
@Suite struct PlainYAMLTests {
    /// The differences between two trees, as paths; empty when equal.
    static func differences(_ fast: Node, _ yams: Node, at path: String = "$") -> [String] {
        var found: [String] = []
        if fast.mark?.line != yams.mark?.line || fast.mark?.column != yams.mark?.column {
            found.append("\(path): mark \(String(describing: fast.mark)) vs \(String(describing: yams.mark))")
        }
        if fast.tag.rawValue != yams.tag.rawValue { found.append("\(path): tag \(fast.tag.rawValue) vs \(yams.tag.rawValue)") }
        switch (fast, yams) {
        case (.scalar(let a), .scalar(let b)):
            if a.string != b.string { found.append("\(path): \(a.string.debugDescription) vs \(b.string.debugDescription)") }
            if a.style != b.style { found.append("\(path): style \(a.style) vs \(b.style)") }
        case (.mapping(let a), .mapping(let b)):
            if a.style != b.style { found.append("\(path): mapping style \(a.style) vs \(b.style)") }
            if a.count != b.count { found.append("\(path): \(a.count) vs \(b.count) pairs"); break }
            for (index, (x, y)) in zip(a, b).enumerated() {
                found += differences(x.key, y.key, at: "\(path).key\(index)") + differences(x.value, y.value, at: "\(path).value\(index)")
            }
        case (.sequence(let a), .sequence(let b)):
            if a.style != b.style { found.append("\(path): sequence style \(a.style) vs \(b.style)") }
            if a.count != b.count { found.append("\(path): \(a.count) vs \(b.count) items"); break }
            for (index, (x, y)) in zip(a, b).enumerated() { found += differences(x, y, at: "\(path)[\(index)]") }
        default:
            found.append("\(path): kinds differ")
        }
        return found
    }

    /// Scalars in the subset, and (`words`) in and out of it, for keys, values and flow items.
    static let safe = ["a", "id", "Content-Type", "$.session_token", "x_y", "v1.2", "/p/q", "Người dùng", "ş ğ", "true", "null", "12",
                       "https://a.example/cb?x=1", "a b", "a#b", "'q'", "\"d\"", "😀", "é", "x "]
    static let words = ["a", "id", "Content-Type", "$.session_token", "x_y", "v1.2", "/p/q", "Người dùng", "ş ğ", "true", "null", "12",
                        "https://a.example/cb?x=1", "a b", "a: b", "a #b", "a#b", "-x", "- x", "?x", ":x", "x:", "'q'", "\"d\"", "\"a\\nb\"",
                        "'it''s'", "&anchor", "*alias", "!tag x", "@x", "%x", "`x", "[x]", "{x}", "a,b", "😀", "é", "  padded  ", "x ", "",
                        "a\u{2028}b", "a\u{85}b", "a\u{2029}", "\u{FEFF}x", "a\u{A0}b", "a\u{80}b", "\u{9F}", "\u{FFFD}",
                        String(repeating: "w", count: 1030)]

    static func word(_ generator: inout SplitMix) -> String {
        Int.random(in: 0..<10, using: &generator) < 8 ? safe.randomElement(using: &generator)! : words.randomElement(using: &generator)!
    }

    /// A value after `key:` at `indent`: scalars, flow collections, block scalars, nested
    /// mappings and sequences, with the odd line the subset leaves to Yams.
    static func value(indent: Int, depth: Int, _ generator: inout SplitMix) -> String {
        let pad = String(repeating: " ", count: indent)
        switch Int.random(in: 0..<(depth > 1 ? 6 : 9), using: &generator) {
        case 0, 1: return " " + word(&generator) + "\n"
        case 2:
            let items = (0..<Int.random(in: 0...3, using: &generator)).map { _ in word(&generator) }
            return " [" + items.joined(separator: [", ", ",", " , "].randomElement(using: &generator)!) + "]" + ["", " ", " # c"].randomElement(using: &generator)! + "\n"
        case 3:
            let pairs = (0..<Int.random(in: 0...3, using: &generator)).map { _ in word(&generator) + [": ", ":", " : "].randomElement(using: &generator)! + word(&generator) }
            return " {" + [" ", ""].randomElement(using: &generator)! + pairs.joined(separator: ", ") + [" ", ""].randomElement(using: &generator)! + "}\n"
        case 4:
            let header = [">", ">-", "|", "|-", ">+", "|2", "> # c"].randomElement(using: &generator)!
            let inner = pad + String(repeating: " ", count: Int.random(in: 1...3, using: &generator))
            var text = " " + header + "\n"
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                text += [inner + word(&generator), inner + "  more", inner + "trail ", "", inner + "# not a comment"].randomElement(using: &generator)! + "\n"
            }
            return text
        case 5:
            return [" \"a \\\" b\"", " 'x'", " \"x\"", " &a x", " plain\n" + pad + "  continued", " \tx", ""].randomElement(using: &generator)! + "\n"
        case 6, 7:
            let inner = indent + Int.random(in: 1...3, using: &generator)
            return "\n" + mapping(indent: inner, depth: depth + 1, &generator)
        default:
            let dash = String(repeating: " ", count: indent + Int.random(in: 0...2, using: &generator)) + "-"
            return "\n" + (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                dash + [" " + word(&generator), " [a, b]", " k: v", "", " - x", " >"].randomElement(using: &generator)!
            }.joined(separator: "\n") + "\n"
        }
    }

    static func mapping(indent: Int, depth: Int, _ generator: inout SplitMix) -> String {
        let pad = String(repeating: " ", count: indent)
        let keys = ["id", "title", "lang", "tags", "actors", "status", "json", "$.sub", "Content-Type", "x", "id", "a b", "-k", "k",
                    String(repeating: "k", count: 1030), String(repeating: "k", count: 990)]
        var text = ""
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            switch Int.random(in: 0..<12, using: &generator) {
            case 0: text += "\n"
            case 1: text += pad + "# comment\n"
            default: text += pad + keys.randomElement(using: &generator)! + ":" + value(indent: indent, depth: depth, &generator)
            }
        }
        return text
    }

    @Test func everyTreeBuiltIsYams() throws {
        var generator = SplitMix(seed: 31)
        var built = 0, left = 0
        for _ in 0..<30000 {
            var text = Self.mapping(indent: 0, depth: 0, &generator)
            if Bool.random(using: &generator), text.hasSuffix("\n") { text.removeLast() }
            guard let fast = PlainYAML.compose(text) else { left += 1; continue }
            built += 1
            let yams = try? Yams.compose(yaml: text, .basic, .default, .utf8)
            guard let yams else {
                Issue.record("PlainYAML built a tree for text Yams refuses or finds empty: \(text.debugDescription)")
                continue
            }
            let found = Self.differences(fast, yams)
            #expect(found.isEmpty, "\(text.debugDescription): \(found)")
        }
        // Both paths are taken often enough to mean something.
        #expect(built > 3000, "built \(built)")
        #expect(left > 3000, "left \(left)")
    }

    /// Mappings of many keys (past the sixteen that `MappingKeys` compares one by one), block
    /// and flow, half of them with a key given twice (in a flow mapping, the second time maybe
    /// as the canonically equivalent decomposed spelling): a duplicate is left to Yams; the
    /// others give Yams' trees.
    @Test func manyKeysFindTheirDuplicates() throws {
        var generator = SplitMix(seed: 47)
        var left = 0, built = 0
        for _ in 0..<400 {
            let flow = Bool.random(using: &generator)
            let count = Int.random(in: 10...40, using: &generator)
            var keys = (0..<count).map { "k\($0)" }
            if flow { keys[0] = "\"\u{E9}\"" }
            let duplicated = Bool.random(using: &generator)
            if duplicated {
                let first = Int.random(in: 0..<(count - 1), using: &generator)
                let second = Int.random(in: (first + 1)..<count, using: &generator)
                keys[second] = first == 0 && flow ? "\"e\u{301}\"" : keys[first]
            }
            let text = flow ? "m: {" + keys.map { $0 + ": v" }.joined(separator: ", ") + "}\n" : keys.map { $0 + ": v\n" }.joined()
            let fast = PlainYAML.compose(text)
            if duplicated {
                #expect(fast == nil, "\(text.debugDescription)")
                left += 1
                continue
            }
            guard let fast else {
                Issue.record("left to Yams without a duplicate: \(text.debugDescription)")
                continue
            }
            built += 1
            let yams = try Yams.compose(yaml: text, .basic, .default, .utf8)
            #expect(yams.map { Self.differences(fast, $0) } == [], "\(text.debugDescription)")
        }
        #expect(left > 100 && built > 100, "left \(left), built \(built)")
    }

    /// The front matter and `expect` blocks of flows/ are all in the subset (the point of it)
    /// and give Yams' trees.
    @Test func theFlowsAreInTheSubset() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../flows").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        #expect(files.count >= 6)
        var blocks: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let parts = text.components(separatedBy: "\n---\n")
            blocks.append(String(parts[0].dropFirst(4)) + "\n")
            var inExpect = false
            var block = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```expect") { inExpect = true; block = ""; continue }
                if inExpect, line.hasPrefix("```") { inExpect = false; blocks.append(block); continue }
                if inExpect { block += line + "\n" }
            }
        }
        #expect(blocks.count > 20)
        for block in blocks {
            let fast = try #require(PlainYAML.compose(block), "\(block)")
            let yams = try #require(try Yams.compose(yaml: block, .basic, .default, .utf8))
            #expect(Self.differences(fast, yams).isEmpty, "\(block)")
        }
    }
}
