import Foundation

/// Headless Chromium (Debian's `chromium`) for tests that read the built site as a browser does.
/// Required: a test using it fails, not skips, when it is missing (the CI script installs it).
public enum Chromium {
    public static let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed (apt-get install chromium); the browser tests need it" }
    }

    public static func path() throws -> String {
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: path) { return path }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing() }
        return path
    }

    public struct Run: Sendable {
        public var stdout: String
        public var stderr: String
        public var status: Int32
        public var timedOut: Bool
    }

    /// Runs chromium headless with a time limit; stdout and stderr go through files so a chatty
    /// browser cannot block on a full pipe.
    public static func run(_ arguments: [String], timeout: TimeInterval = 90) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowspec-chromium-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
            "--user-data-dir=" + directory.appendingPathComponent("profile").path,
        ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let timedOut = process.isRunning
        if timedOut {
            process.terminate()
            process.waitUntilExit()
        }
        return Run(
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            status: process.terminationStatus, timedOut: timedOut
        )
    }

    /// Console messages of the page (errors, CSP violations, anything logged).
    public static func consoleLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
    }
}
