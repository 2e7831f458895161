import FlowModel
@testable import FlowParser
import Foundation
import Testing

/// The parser must never trap, hang or blow the stack, whatever the bytes. Each input here
/// once broke a Markdown or YAML tool somewhere; every one must give diagnostics or a flow.
@Suite struct HostileInputTests {
    static let frontMatter = "---\nid: x\ntitle: X\nactors:\n  a: { name: A, role: client }\n  b: { name: B, role: backend }\n---\n"

    static var corpus: [(name: String, bytes: [UInt8])] {
        var inputs: [(String, [UInt8])] = [
            ("empty", []),
            ("only newline", [10]),
            ("only BOM", [0xEF, 0xBB, 0xBF]),
            ("NUL bytes", [0x2D, 0x2D, 0x2D, 0x0A, 0x00, 0x00]),
            ("invalid UTF-8", Array("---\nid: x\ntitle: ".utf8) + [0xC3, 0x28, 0xFF] + Array("\n---\n".utf8)),
            ("lone surrogate encoding", [0xED, 0xA0, 0x80]),
            ("overlong encoding", [0xC0, 0xAF]),
            ("UTF-16 text", Array("---\nid: x\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
            ("unterminated front matter", Array("---\nid: x\ntitle: y\n".utf8)),
            ("front matter only", Array(frontMatter.utf8)),
            ("CRLF line endings", Array((frontMatter + "\n## Steps\n\n### 1. A\na → b\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)),
            ("huge step number", Array((frontMatter + "### 99999999999999999999999. X\na → b\n").utf8)),
            ("zero step", Array((frontMatter + "### 0. X\na → b\n").utf8)),
            ("arrow soup", Array((frontMatter + "### 1. X\na → → b\n\n- → →\n- x → end:\n- y → end: \n- → 1\n").utf8)),
            ("unclosed fences", Array((frontMatter + "### 1. X\na → b\n\n```http\nPOST /x\n").utf8)),
            ("empty http and expect", Array((frontMatter + "### 1. X\na → b\n\n```http\n```\n\n```expect\n```\n").utf8)),
            ("expect not a mapping", Array((frontMatter + "### 1. X\na → b\n\n```http\nGET /x\n```\n\n```expect\n- 1\n- 2\n```\n").utf8)),
            ("placeholder soup", Array((frontMatter + "### 1. X\na → b\n\n```http\nGET /{{{{}}}}{{\n```\n").utf8)),
            ("token table without rows", Array((frontMatter + "| Rule | Token |\n|---|---|\n").utf8)),
            ("token table ragged", Array((frontMatter + "| Rule | Token |\n|---|---|\n| a |\n| b | c @ | d | e |\n| | @999999999999 |\n").utf8)),
            ("yaml anchors and aliases", Array("---\na: &a [1, 2]\nb: [*a, *a, *a]\nid: x\ntitle: x\nactors: *a\n---\n".utf8)),
            ("yaml tabs", Array("---\n\tid: x\n---\n".utf8)),
            ("yaml duplicate keys", Array("---\nid: x\nid: y\n---\n".utf8)),
            ("yaml non-string keys", Array("---\n[1, 2]: x\n? {a: b}\n: c\n---\n".utf8)),
            ("yaml binary tag", Array("---\nid: !!binary aGVsbG8=\ntitle: !custom x\n---\n".utf8)),
            ("control characters", Array((frontMatter + "### 1. \u{1}\u{7}\u{1B}[31m red\na → b\n").utf8)),
            ("right-to-left and combining", Array((frontMatter + "### 1. \u{202E}evil\u{0301}\u{0301}\na → b\n").utf8)),
        ]
        // Deep nesting: lists, block quotes, YAML flow collections and indentation.
        inputs.append(("nested lists 5000", Array((frontMatter + (0..<5000).map { String(repeating: "  ", count: $0) + "- x" }.joined(separator: "\n")).utf8)))
        inputs.append(("nested quotes 50000", Array((frontMatter + String(repeating: ">", count: 50_000) + " x\n").utf8)))
        inputs.append(("nested brackets 100000", Array((frontMatter + String(repeating: "[", count: 100_000) + "\n").utf8)))
        inputs.append(("yaml nested flow 100000", Array(("---\nid: " + String(repeating: "[", count: 100_000) + "\n---\n").utf8)))
        inputs.append(("yaml nested block 2000", Array(("---\n" + (0..<2000).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n") + " v\n---\n").utf8)))
        inputs.append(("inline emphasis bomb", Array((frontMatter + String(repeating: "*a **a ", count: 20_000) + "\n").utf8)))
        inputs.append(("many steps", Array((frontMatter + "## Steps\n" + (1...3000).map { "### \($0). S\na → b\n" }.joined(separator: "\n")).utf8)))
        return inputs
    }

    @Test func corpusNeverTraps() {
        let parser = SpecParser()
        for (name, bytes) in Self.corpus {
            let result = parser.parse(bytes: bytes, file: "\(name).md")
            // Either a flow or at least one diagnostic explains why not.
            #expect(result.flow != nil || !result.diagnostics.isEmpty, "\(name): no flow and no diagnostic")
            for diagnostic in result.diagnostics {
                #expect(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "\(name): \(diagnostic)")
            }
        }
    }

    @Test func binaryAndEncodingAreUnusableInput() {
        let parser = SpecParser()
        let binary = parser.parse(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00], file: "x.png")
        #expect(binary.diagnostics.map(\.code) == ["FS001"])
        #expect(binary.diagnostics.allSatisfy { $0.isUnusableInput })
        let latin1 = parser.parse(bytes: Array("---\nid: x\n".utf8) + [0x54, 0xFC, 0x72, 0x6B, 0x0A], file: "x.md")
        #expect(latin1.diagnostics.map(\.code) == ["FS002"])
        #expect(latin1.diagnostics.first?.location.line == 3)
    }

    @Test func tenMegabyteFileParses() {
        let paragraph = "Lorem ipsum dolor sit amet, **consectetur** adipiscing elit, `code` [link](https://example.com).\n\n"
        let body = String(repeating: paragraph, count: 10 * 1024 * 1024 / paragraph.utf8.count)
        let text = Self.frontMatter + "\n## Steps\n\n### 1. Only\na → b\n\n" + body
        #expect(text.utf8.count > 10_000_000)
        let result = SpecParser().parse(bytes: Array(text.utf8), file: "big.md")
        #expect(result.flow?.steps.count == 1)
        #expect(result.flow?.steps.first?.prose.source.utf8.count ?? 0 > 10_000_000)
    }

    @Test func overLimitIsRefused() {
        let result = SpecParser(maximumFileSize: 100).parse(bytes: Array(repeating: 0x61, count: 101), file: "x.md")
        #expect(result.diagnostics.map(\.code) == ["FS004"])
    }

    @Test func deepYAMLIsRefusedBeforeYams() {
        let result = SpecParser().parse(bytes: Array(("---\nid: " + String(repeating: "[", count: 100_000) + "\n---\n").utf8), file: "x.md")
        #expect(result.diagnostics.first?.code == "FS102")
        #expect(result.diagnostics.first?.message.contains("deeper than 64") == true)
    }

    @Test func fuzzedMutationsOfARealSpecNeverTrap() throws {
        // Deterministic byte-level mutations of a complete spec (flip, delete, duplicate ranges).
        let base = Array(sampleSpec.utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(truncatingIfNeeded: state & 0x7FFF_FFFF)
        }
        let parser = SpecParser()
        for _ in 0..<400 {
            var bytes = base
            for _ in 0..<(1 + next() % 6) {
                let position = next() % max(bytes.count, 1)
                switch next() % 4 {
                case 0: bytes[position] = UInt8(next() % 256)
                case 1: bytes.remove(at: position)
                case 2:
                    let length = min(next() % 40, bytes.count - position)
                    bytes.insert(contentsOf: bytes[position..<(position + length)], at: position)
                default:
                    bytes.insert(contentsOf: Array(["→", "```", "{{", "---", "\n- ", "|", "@", "### 9. "][next() % 8].utf8), at: position)
                }
                if bytes.isEmpty { break }
            }
            let result = parser.parse(bytes: bytes, file: "fuzz.md")
            #expect(result.flow != nil || !result.diagnostics.isEmpty)
        }
    }
}

let sampleSpec = """
---
id: sample
title: Sample
actors:
  user: { name: User, role: person }
  app: { name: App, role: client }
  backend: { name: Backend, role: backend }
variables:
  username: alice
---

# Sample

## Steps

### 1. User types
user → app

### 2. App logs in
app → backend

```http
POST /auth/login
Content-Type: application/json

{"username": "{{username}}"}
```

- Accepted → 3
  ```expect
  status: 200
  capture:
    token: $.token
  ```
- Rejected → end: failure
  ```expect
  status: 401
  ```

### 3. App loads profile
app → backend

```http
GET /me
Authorization: Bearer {{token}}
```

```expect
status: [200, 203]
headers:
  Content-Type: { matches: "application/json.*" }
json:
  $.user.name: "Alice"
  $.user['e-mail']: { exists: true }
  $.items[0]: 3
```

## Token rules

| Rule | Token | Requirement |
|---|---|---|
| signature | id_token @ 2 | RS256 |
"""
