/// A position in a spec file, as a writer sees it: 1-based line and 1-based column counted in
/// Unicode code points (so a Vietnamese or Turkish line points at the right character, not byte).
///
/// Every node of the model carries one, so lint, the site and the checker can all point back at
/// the exact place in the Markdown that produced a value.
public struct SourceLocation: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:col`, the form compilers print and editors understand.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// The start of a file: used for problems that concern a file as a whole.
    public static func start(of file: String) -> SourceLocation {
        SourceLocation(file: file, line: 1, column: 1)
    }
}

/// A span in a spec file; `end` is inclusive of its last character.
public struct SourceRange: Hashable, Sendable, Codable {
    public var start: SourceLocation
    public var end: SourceLocation

    public init(start: SourceLocation, end: SourceLocation) {
        self.start = start
        self.end = end
    }

    public init(_ location: SourceLocation) {
        self.start = location
        self.end = location
    }
}
