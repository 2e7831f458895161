/// FlowCheck executes flow specs against a backend: planner, runner, token suite, verdicts,
/// evidence and reports. See docs/check.md.
public enum FlowCheck {
    public static let reportSchemaVersion = 1
}
