/// Secrets (tokens, client secrets, codes, private keys) never appear whole in logs, records or
/// evidence: only a recognisable prefix.
public enum Secret {
    /// The first 8 characters and `…`; short values keep at most half their length.
    public static func elide(_ value: String) -> String {
        if value.isEmpty { return "" }
        let keep = min(8, value.count / 2)
        return String(value.prefix(keep)) + "…"
    }

    public static func elide(_ value: String?) -> String? { value.map { elide($0) } }
}
