public enum FlowSitePlaceholder {}
