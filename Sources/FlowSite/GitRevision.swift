import Foundation

/// The git revision a site is built from, for its footer (`revision: true` in site.yml).
enum GitRevision {
    /// The short hash of HEAD of the checkout holding `directory`: `git rev-parse --short=12
    /// HEAD`. Nil when git is missing, the folder is no checkout, or git fails: the build goes on
    /// without it. Only hex digits are returned.
    static func short(in directory: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let git = paths.map({ "\($0)/git" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: git)
        process.arguments = ["-C", directory.isEmpty ? "." : directory, "rev-parse", "--short=12", "HEAD"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let hash = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (7...40).contains(hash.count), hash.allSatisfy(\.isHexDigit) else { return nil }
        return hash
    }
}
