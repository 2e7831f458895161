public enum FlowLintPlaceholder {}
