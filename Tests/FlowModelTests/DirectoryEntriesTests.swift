import Foundation
import Testing
@testable import FlowModel

/// Folder listing read in place (a `dirent` is as long as its record; copying the struct read
/// past the C library's buffer — AddressSanitizer: heap-buffer-overflow, and a crash in serve).
@Suite struct DirectoryEntriesTests {
    @Test func everyNameOfEveryLengthAndItsKind() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dirents-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        // Names of every length up to the limit, so records of every size sit at the end of a
        // buffer somewhere, and a non-ASCII one.
        var expected: [String: DirectoryEntries.Kind] = ["sub": .directory, "link": .link, "é-ğ-ữ.md": .file]
        for length in 1...250 {
            let name = String(repeating: "n", count: length) + ".md"
            guard name.utf8.count <= 255 else { continue }
            expected[name] = .file
        }
        for (name, kind) in expected where kind == .file { try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/" + name)) }
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "sub")
        var seen: [String: DirectoryEntries.Kind] = [:]
        #expect(DirectoryEntries.forEach(in: root) { name, kind in seen[name] = kind })
        #expect(seen == expected)
        #expect(!DirectoryEntries.forEach(in: root + "/missing") { _, _ in Issue.record("listed a missing folder") })
    }
}
