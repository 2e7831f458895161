/// How serious a finding is. Errors fail `lint` (exit 1) and stop `build`; warnings fail only
/// under `--strict`; notes are informational.
public enum Severity: String, Sendable, Codable, Hashable, CaseIterable, Comparable {
    case error
    case warning
    case note

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// One finding about a spec: a value, never thrown. Produced by the parser (syntax) and the
/// linter (semantics); rendered by the reporters as text, JSON or SARIF.
public struct Diagnostic: Hashable, Sendable, Codable {
    /// Stable identifier such as `FS202` (a `DiagnosticCode`'s id); documented in
    /// docs/flow-format.md.
    public private(set) var code: String
    public var severity: Severity
    public var location: SourceLocation
    /// Optional end of the offending span (inclusive), for editors that underline.
    public var end: SourceLocation?
    /// One sentence saying what is wrong.
    public var message: String
    /// What to do about it, when there is something useful to say.
    public var hint: String?
    /// Other places that help to understand the finding (e.g. the first of two duplicates).
    public var related: [RelatedLocation]

    /// - Parameter severity: when not the code's usual one.
    public init(
        _ code: DiagnosticCode,
        severity: Severity? = nil,
        location: SourceLocation,
        end: SourceLocation? = nil,
        message: String,
        hint: String? = nil,
        related: [RelatedLocation] = []
    ) {
        self.code = code.id
        self.severity = severity ?? code.severity
        self.location = location
        self.end = end
        self.message = message
        self.hint = hint
        self.related = related
    }

    /// Input that cannot be read as a spec at all (binary, not UTF-8, unreadable) uses codes
    /// `FS0xx`; such findings make the command exit 2 rather than 1.
    public var isUnusableInput: Bool { code.hasPrefix("FS0") }

    /// The code's entry in the catalogue (title, documentation).
    public var kind: DiagnosticCode? { DiagnosticCode.named(code) }
}

/// A secondary location attached to a diagnostic.
public struct RelatedLocation: Hashable, Sendable, Codable {
    public var location: SourceLocation
    public var message: String

    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }
}

extension Array where Element == Diagnostic {
    /// Diagnostics in a stable order: file, line, column, then code. Output never depends on the
    /// order rules happened to run in.
    public func sortedForOutput() -> [Diagnostic] {
        sorted { a, b in
            if a.location != b.location { return a.location < b.location }
            if a.code != b.code { return a.code < b.code }
            return a.message < b.message
        }
    }

    public var errorCount: Int { filter { $0.severity == .error }.count }
    public var warningCount: Int { filter { $0.severity == .warning }.count }
}
