import FlowCheck
import FlowLint
import FlowModel
import Foundation

enum Fixtures {
    static var directory: URL { Bundle.module.resourceURL!.appendingPathComponent("Fixtures") }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Flows of a fixture path, linted: a fixture with lint errors is a broken test.
    static func flows(_ name: String) throws -> [Flow] {
        let run = Linter().lint(paths: [path(name)])
        if run.hasErrors {
            throw FixtureError(description: DiagnosticPrinter.text(run.diagnostics, color: false))
        }
        return run.flows
    }

    static func flowsAt(_ path: String) throws -> [Flow] {
        let run = Linter().lint(paths: [path])
        if run.hasErrors { throw FixtureError(description: DiagnosticPrinter.text(run.diagnostics, color: false)) }
        return run.flows
    }

    /// The repository's own flows/ directory.
    static var repositoryFlows: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("flows").path
    }

    static var repositoryRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }
}

/// Captures console output for assertions.
final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    var text: String { lock.withLock { buffer } }
    lazy var console: Console = Console(isTTY: false) { [self] text in lock.withLock { buffer += text } }
}

/// Runs a command; returns exit status and combined output.
func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(dir)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
