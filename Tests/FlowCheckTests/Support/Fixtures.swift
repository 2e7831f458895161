import FlowCheck
import FlowLint
import FlowModel
import Foundation
import Synchronization
@_exported import TestSupport

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
final class CapturedOutput: Sendable {
    private let buffer = Mutex("")
    var text: String { buffer.withLock { $0 } }
    var console: Console { Console(isTTY: false) { [self] text in buffer.withLock { $0 += text } } }
}

