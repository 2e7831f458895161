/// Where the commands look for specs when no path is given: one default for lint, export,
/// check and mock (build and serve take theirs from site.yml's `flows`, itself `flows` by
/// default).
enum SpecPaths {
    static let defaultFolder = "flows"

    /// The paths given, or the default folder.
    static func resolve(_ paths: [String]) -> [String] { paths.isEmpty ? [defaultFolder] : paths }

    /// The paths as a user would name them in a message.
    static func described(_ paths: [String]) -> String { resolve(paths).joined(separator: " ") }
}
