public enum FlowSitePlaceholder { static var n: Int { EmbeddedTheme.files.count } }
