import Foundation
import Testing
import TestSupport

/// `flowspec mock` runs until SIGINT or SIGTERM and then stops its servers and exits 0 (the
/// signals come from swift-service-lifecycle's UnixSignalsSequence).
@Suite struct MockSignalTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func mockStopsCleanlyOnASignal(signal: Int32) async throws {
        let process = Process()
        process.executableURL = flowspecBinary
        process.arguments = ["mock", "--port", "0"]
        process.currentDirectoryURL = packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Wait until it listens (it prints where), then signal it.
        var output = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !String(decoding: output, as: UTF8.self).contains("http://127.0.0.1:") {
            output += pipe.fileHandleForReading.availableData
        }
        #expect(String(decoding: output, as: UTF8.self).contains("http://127.0.0.1:"), "\(String(decoding: output, as: UTF8.self))")
        kill(process.processIdentifier, signal)
        let stopped = Date().addingTimeInterval(20)
        while process.isRunning, Date() < stopped { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        #expect(process.terminationReason == .exit, "ended by the signal itself, not by handling it")
        #expect(process.terminationStatus == 0)
    }
}
