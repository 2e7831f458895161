import Foundation
import Testing

/// docs/architecture.md's targets table must say what Package.swift says, and every module a
/// target imports must be one it declares (or the platform's): the house plan stays true.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Target → declared dependencies (targets and products), read from Package.swift's text.
    static func manifest() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: Set<String>] = [:]
        // Each `.target(` / `.executableTarget(` / `.systemLibrary(` call up to the next one.
        let calls = text.components(separatedBy: ".target(").dropFirst().map { ("target", $0) }
            + text.components(separatedBy: ".executableTarget(").dropFirst().map { ("executable", $0) }
            + text.components(separatedBy: ".systemLibrary(").dropFirst().map { ("system", $0) }
        for (_, call) in calls {
            let body = call.components(separatedBy: ".testTarget(")[0].components(separatedBy: ".target(")[0]
                .components(separatedBy: ".executableTarget(")[0].components(separatedBy: ".plugin(")[0]
            guard let name = body.firstMatch(of: /name:\s*"([A-Za-z0-9_]+)"/)?.output.1 else { continue }
            var dependencies = Set<String>()
            if let list = body.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/)?.output.1 {
                for match in list.matches(of: /\.product\(name:\s*"([A-Za-z0-9_]+)"/) { dependencies.insert(String(match.output.1)) }
                let withoutProducts = list.replacing(/\.product\([^)]*\)/, with: "")
                for match in withoutProducts.matches(of: /"([A-Za-z0-9_]+)"/) { dependencies.insert(String(match.output.1)) }
            }
            result[String(name)] = dependencies
        }
        return result
    }

    /// Target → the dependencies the docs' table names (system libraries' own rows say "system").
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var result: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3, cells[1].hasPrefix("`") else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let dependencies = cells[2].hasPrefix("system") || cells[2] == "—" ? [] : cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            result[name] = Set(dependencies)
        }
        return result
    }

    @Test func targetsTableMatchesThePackage() throws {
        let manifest = try Self.manifest()
        let documented = try Self.documented()
        // Test targets and their shared support (Tests/TestSupport) are not part of the product.
        let buildTargets = manifest.keys.filter { !$0.hasSuffix("Tests") && $0 != "TestSupport" && $0 != "FlowSiteEmbedTheme" }
        #expect(Set(buildTargets) == Set(documented.keys), "targets: package \(buildTargets.sorted()), docs \(documented.keys.sorted())")
        for target in buildTargets.sorted() {
            #expect(manifest[target] == documented[target], "\(target): Package.swift \(manifest[target]?.sorted() ?? []), docs \(documented[target]?.sorted() ?? [])")
        }
    }

    @Test func everyImportIsDeclared() throws {
        let manifest = try Self.manifest()
        let platform: Set<String> = ["Foundation", "FoundationNetworking", "Glibc", "Darwin", "Dispatch", "Synchronization", "PackageDescription"]
        let sources = Self.root.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) where manifest[target] != nil {
            let declared = manifest[target]!.union(platform).union([target])
            let files = FileManager.default.enumerator(atPath: sources.appendingPathComponent(target).path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                let text = try String(contentsOf: sources.appendingPathComponent(target).appendingPathComponent(file), encoding: .utf8)
                for match in text.matches(of: /(?m)^(?:@testable\s+|@_implementationOnly\s+|public\s+)?import\s+([A-Za-z0-9_]+)/) {
                    let module = String(match.output.1)
                    #expect(declared.contains(module), "Sources/\(target)/\(file) imports \(module), which \(target) does not declare")
                }
            }
        }
    }
}
