/// The exit statuses every `flowspec` command uses (docs/cli.md, "Exit codes"): one list.
public enum CommandExit {
    /// Clean, built, every check passed, or stopped by a signal.
    public static let passed: Int32 = 0
    /// Findings: lint errors, check failures, errors or inconclusive cases.
    public static let failures: Int32 = 1
    /// Unusable input: a missing path, an unreadable or non-UTF-8 spec, invalid configuration,
    /// a bad registration, specs with lint errors where a command needs clean ones.
    public static let badInput: Int32 = 2
    /// The backend is unreachable, or a server could not start.
    public static let unreachable: Int32 = 3
}
