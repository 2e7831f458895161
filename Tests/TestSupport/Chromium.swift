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
    /// browser cannot block on a full pipe. The wait is on a thread of its own, not on one of
    /// Swift concurrency's cooperative threads (two on a 2-core machine): a browser run takes
    /// seconds, and a test holding a cooperative thread that long starves the mock servers of
    /// the tests running beside it (their requests then time out).
    public static func run(_ arguments: [String], timeout: TimeInterval = 90) async throws -> Run {
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
        let browser = Browser(process: process)
        let (status, timedOut) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, Bool), Never>) in
            Thread {
                let deadline = Date().addingTimeInterval(timeout)
                while browser.process.isRunning && Date() < deadline { usleep(50_000) }
                let timedOut = browser.process.isRunning
                if timedOut { browser.process.terminate() }
                browser.process.waitUntilExit()
                continuation.resume(returning: (browser.process.terminationStatus, timedOut))
            }.start()
        }
        return Run(
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            status: status, timedOut: timedOut
        )
    }

    // @unchecked: handed to one waiting thread, which alone touches it until it resumes the caller.
    private struct Browser: @unchecked Sendable {
        let process: Process
    }

    /// Console messages of the page (errors, CSP violations, anything logged).
    public static func consoleLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
    }
}
