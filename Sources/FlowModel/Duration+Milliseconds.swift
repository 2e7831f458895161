extension Duration {
    /// Whole milliseconds, truncated: what reports (`durationMS`) and logs print.
    public var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
