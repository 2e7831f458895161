import FlowModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns command-line paths into the list of spec files.
public enum SpecFiles {
    public static func expand(_ paths: [String], diagnostics: inout [Diagnostic]) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                diagnostics.append(Diagnostic(.unreadable, severity: .error, location: .start(of: path), message: "no such file or directory"))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            var found: [String] = []
            var unreadable: [(path: String, reason: String)] = []
            collectSpecs(in: path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path, into: &found, unreadable: &unreadable)
            for folder in unreadable {
                diagnostics.append(Diagnostic(.unreadable, severity: .error, location: .start(of: folder.path),
                                              message: "cannot read this directory: \(folder.reason)",
                                              hint: "check its permissions (flowspec needs to list it)"))
            }
            if found.isEmpty, unreadable.isEmpty {
                diagnostics.append(Diagnostic(.noSpecs, severity: .error, location: .start(of: path),
                                              message: "no *.md specs in this directory"))
            }
            files += found.sortedByBytes()
        }
        // A file named twice (`flows flows/a.md`) is read once. One folder cannot name a file
        // twice (links to folders are not followed).
        guard paths.count > 1 else { return files }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }

    /// Entries a spec listing never enters: hidden ones, `_build` and `node_modules`.
    public static func skips(_ name: String) -> Bool {
        name.hasPrefix(".") || name == "_build" || name == "node_modules"
    }

    /// `*.md` files under a folder, found with readdir and the entry types it reports (no stat per
    /// file: listing 10 000 specs must cost milliseconds). Hidden entries, `_build` and
    /// `node_modules` are skipped; symbolic links to folders are not followed.
    private static func collectSpecs(in directory: String, into found: inout [String], unreadable: inout [(path: String, reason: String)]) {
        var subdirectories: [String] = []
        let opened = DirectoryEntries.forEach(in: directory) { name, kind in
            if skips(name) { return }
            if kind == .directory {
                subdirectories.append(directory + "/" + name)
            } else if kind != .unknown, name.hasSuffix(".md") {
                found.append(directory + "/" + name)
            }
        }
        guard opened else {
            unreadable.append((directory, String(cString: strerror(errno))))
            return
        }
        for subdirectory in subdirectories { collectSpecs(in: subdirectory, into: &found, unreadable: &unreadable) }
    }
}


extension SpecParser {
    /// Parses specs on all cores, results in input order (so output does not depend on
    /// scheduling): the one loader behind lint, check, mock, export, build and serve. A spec
    /// whose bytes are given (already read and hashed by the site's incremental build) is not
    /// read again.
    /// `parsed`, when given, sees each result as soon as it is made, on the thread that made it.
    public func parseAll(_ specs: [(path: String, bytes: [UInt8]?)], parsed: (@Sendable (ParseResult) -> Void)? = nil) -> [ParseResult] {
        let results = OrderedSlots<ParseResult>(count: specs.count)
        DispatchQueue.concurrentPerform(iterations: specs.count) { index in
            let spec = specs[index]
            let result = spec.bytes.map { parse(bytes: $0, file: spec.path) } ?? parse(fileAt: spec.path)
            parsed?(result)
            results.set(index, result)
        }
        return results.values
    }
}
