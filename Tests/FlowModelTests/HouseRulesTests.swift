import Foundation
import Testing
import TestSupport

/// docs/architecture.md's house rule, "rooms a newcomer can read": no Swift file in Sources/ over
/// 400 lines and no function over 80, as `scripts/size-check.py` measures them.
@Suite struct HouseRulesTests {
    static let script = packageRoot.appendingPathComponent("scripts/size-check.py").path

    @Test func sourcesKeepTheSizeRule() throws {
        let python = try #require(which("python3"), "python3 runs scripts/size-check.py")
        let result = try runProcess(python, [Self.script, packageRoot.appendingPathComponent("Sources").path])
        #expect(result.status == 0, "files or functions over the limits:\n\(result.output)")
    }

    /// The scanner finds what it must: a long function (its line, 85 body lines and its closing
    /// brace: 87; the braces inside strings and comments
    /// not counted) and a long file, in a folder written here.
    @Test func theScannerFindsALongFunctionAndALongFile() throws {
        let python = try #require(which("python3"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("size-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = (1...85).map { "        let v\($0) = \"}\" // }" }.joined(separator: "\n")
        try "struct A {\n    func long() {\n\(body)\n    }\n    func short() { }\n}\n"
            .write(to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        try String(repeating: "let x = 1\n", count: 401).write(to: folder.appendingPathComponent("B.swift"), atomically: true, encoding: .utf8)
        let result = try runProcess(python, [Self.script, folder.path])
        #expect(result.status == 1)
        #expect(result.output.contains("A.swift:2: func long has 87 lines"))
        #expect(!result.output.contains("short"))
        #expect(result.output.contains("B.swift:1: file has 401 lines"))
    }
}
