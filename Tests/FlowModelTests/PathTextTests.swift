import FlowModel
import Foundation
import Testing
import TestSupport

/// `PathText` replaces Foundation's `deletingLastPathComponent`, which traps on Linux for a
/// one-character path. Where Foundation answers, the two agree; `resolved` agrees with the
/// Character-level normalisation `APIDescriptionLoader` used before it.
@Suite struct PathTextTests {
    static let components = ["ab", "..", "x.md", "öz", "akış", "e\u{301}x", ".c", "dir.d"]

    static func randomPath(_ random: inout SplitMix) -> String {
        var path = Bool.random(using: &random) ? "/" : ""
        for index in 0..<Int.random(in: 1...4, using: &random) {
            if index > 0 { path += ["/", "/", "//"].randomElement(using: &random)! }
            path += components.randomElement(using: &random)!
        }
        return path + (Int.random(in: 0..<4, using: &random) == 0 ? "/" : "")
    }

    @Test func folderIsWhatFoundationGives() {
        var random = SplitMix(seed: 0x0F01)
        for _ in 0..<3000 {
            let path = Self.randomPath(&random)
            #expect(PathText.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
    }

    /// Foundation traps on these (`flowspec lint a` crashed when the spec `a` named an OpenAPI
    /// description); a path of slashes only is the root.
    @Test func oneCharacterPathsHaveAFolder() {
        for (path, folder) in [("a", ""), ("ö", ""), ("a/", ""), (".", ""), ("./", ""), ("/a", "/"), ("x/a", "x"), ("//", "/"), ("/", "/"), ("", "")] {
            #expect(PathText.folder(of: path) == folder, "\(path)")
        }
    }

    /// The normalisation `APIDescriptionLoader.resolve` used before: Foundation's folder, then
    /// `.` and `name/..` removed from the Character-level components.
    static func reference(_ written: String, relativeTo base: String) -> String {
        let folder = (base as NSString).deletingLastPathComponent
        let path = folder.isEmpty ? written : folder + "/" + written
        var kept: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = kept.last, last != ".." {
                kept.removeLast()
                continue
            }
            kept.append(component)
        }
        let joined = kept.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    @Test func resolvedAsBefore() {
        var random = SplitMix(seed: 0x0F02)
        for _ in 0..<3000 {
            let base = Self.randomPath(&random) + "/" + ["a.md", "b.md", "öz.md"].randomElement(using: &random)!
            var written = Self.randomPath(&random)
            if written.hasPrefix("/") { written.removeFirst() }
            #expect(PathText.resolved(written, relativeTo: base) == Self.reference(written, relativeTo: base), "\(written) from \(base)")
        }
    }

    @Test func resolvedExamples() {
        let cases: [(written: String, base: String, expected: String)] = [
            ("../openapi/x.yaml", "flows/a.md", "openapi/x.yaml"),
            ("x.yaml", "a.md", "x.yaml"),
            ("x.yaml", "a", "x.yaml"),
            ("x.yaml", "/a.md", "/x.yaml"),
            ("../../x.yaml", "a/b.md", "../x.yaml"),
            ("./api/../x.yaml", "/srv/flows//a.md", "/srv/flows/x.yaml"),
            ("..", "a/b.md", "."),
            ("..", "/a.md", "/.."),
        ]
        for (written, base, expected) in cases {
            #expect(PathText.resolved(written, relativeTo: base) == expected, "\(written) from \(base)")
        }
    }
}
