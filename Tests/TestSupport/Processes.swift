import Foundation

/// Running programs from tests, one way for every test target: exit status and combined output.
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The full path of `tool` on PATH.
public func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(dir)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// The repository root (where Package.swift is).
public let packageRoot: URL = {
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while directory.path != "/" && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
        directory.deleteLastPathComponent()
    }
    return directory
}()

/// The `flowspec` executable built with the tests (`swift build --build-tests` builds it into
/// the products directory beside the test bundle; test targets that use it depend on it).
public var flowspecBinary: URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("flowspec")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/flowspec")
}

/// Waits for a started `process`, reading `pipe` to its end, on a thread of its own: not on one
/// of Swift concurrency's cooperative threads (two on a 2-core machine), which a test waiting
/// for a child's whole run would hold, starving every other test's tasks meanwhile — the mock
/// servers' responders among them.
public func finished(_ process: Process, output pipe: Pipe) async -> (status: Int32, output: String) {
    let child = Child(process: process, pipe: pipe)
    return await withCheckedContinuation { continuation in
        Thread {
            let data = child.pipe.fileHandleForReading.readDataToEndOfFile()
            child.process.waitUntilExit()
            continuation.resume(returning: (child.process.terminationStatus, String(decoding: data, as: UTF8.self)))
        }.start()
    }
}

// @unchecked: handed to one waiting thread, which alone touches it until it resumes the caller.
private struct Child: @unchecked Sendable {
    let process: Process
    let pipe: Pipe
}
