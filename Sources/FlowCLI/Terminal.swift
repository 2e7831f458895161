import Foundation

/// Where output goes and whether it may be coloured.
enum Terminal {
    /// `--color auto|always|never`; `auto` colours only a TTY and honours NO_COLOR.
    static func useColor(_ mode: ColorMode, stream: Int32 = STDOUT_FILENO) -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .auto:
            if ProcessInfo.processInfo.environment["NO_COLOR"] != nil { return false }
            if ProcessInfo.processInfo.environment["TERM"] == "dumb" { return false }
            return isatty(stream) != 0
        }
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

import ArgumentParser

enum ColorMode: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

/// Writes a file atomically: a temporary file beside it, then a rename.
enum AtomicFile {
    static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(ProcessInfo.processInfo.processIdentifier)")
        try Data(text.utf8).write(to: temporary)
        // rename(2) replaces an existing file atomically (FileManager.replaceItemAt failed on
        // Linux when the target existed: "The file doesn't exist").
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
    }
}
