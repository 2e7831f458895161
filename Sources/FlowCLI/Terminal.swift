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
