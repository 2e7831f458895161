/// FlowCheck executes flow specs against a backend: planner, runner, token suite, verdicts,
/// evidence and reports. See docs/check.md.
public enum FlowCheck {
    /// Version of the JSON report schema (docs/schemas/check-report.schema.json).
    public static let reportSchemaVersion = 2
    /// Reported as the tool version; kept equal to `FlowspecVersion.current`.
    public static let version = "0.1.0"
}
