import FlowModel
import Foundation

/// Keeps secrets out of evidence, console output and reports: tokens, client secrets, codes,
/// private keys, cookies and Authorization headers keep their first 8 characters and `…`.
///
/// Applied to everything the checker records, whatever the backend sends: a hostile backend
/// that echoes a token in an error body does not get it printed.
public enum Redaction {
    /// Largest excerpt of a body kept in evidence, in bytes.
    public static let excerptLimit = 500

    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    ]

    /// Names (of JSON keys, form fields and query parameters) whose values are secrets.
    static func isSecretName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == "code" || lowered == "nonce" || lowered == "payload" { return true }
        return ["token", "secret", "password", "session", "cookie", "private", "assertion", "key", "jwt", "authorization"]
            .contains { lowered.contains($0) } && lowered != "key_id" && lowered != "kid" && lowered != "keyid"
    }

    public static func elide(_ value: String) -> String { Secret.elide(value) }

    public static func headers(_ headers: [HeaderField]) -> [HeaderField] {
        headers.map { field in
            guard secretHeaders.contains(field.name.lowercased()) else {
                return HeaderField(name: field.name, value: text(field.value))
            }
            // Keep the scheme readable: `Bearer eyJhbGci…`.
            let parts = field.value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].count < 16 {
                return HeaderField(name: field.name, value: "\(parts[0]) \(elide(String(parts[1])))")
            }
            return HeaderField(name: field.name, value: elide(field.value))
        }
    }

    // Patterns, compiled once.
    private static let pem = try! NSRegularExpression(
        pattern: "-----BEGIN [A-Z ]*-----[\\s\\S]*?(-----END [A-Z ]*-----|$)")
    private static let jwt = try! NSRegularExpression(
        pattern: "[A-Za-z0-9_=+/-]{8,}\\.[A-Za-z0-9_=+/-]{8,}\\.[A-Za-z0-9_=+/-]*")
    private static let jsonMember = try! NSRegularExpression(
        pattern: "\"([A-Za-z0-9_.-]+)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
    private static let formField = try! NSRegularExpression(
        pattern: "(?:^|[?&\\s])([A-Za-z0-9_.-]+)=([^&\\s\"]+)")

    /// Elides every secret found in free text (a body, a URL, a message).
    public static func text(_ input: String) -> String {
        var out = input
        out = replace(pem, in: out) { match, ns in
            let whole = ns.substring(with: match.range)
            return String(whole.prefix(8)) + "…"
        }
        out = replace(jsonMember, in: out) { match, ns in
            let name = ns.substring(with: match.range(at: 1))
            let value = ns.substring(with: match.range(at: 2))
            guard isSecretName(name), !value.isEmpty, !value.hasSuffix("…") else { return ns.substring(with: match.range) }
            return "\"\(name)\":\"\(elide(value))\""
        }
        out = replace(formField, in: out) { match, ns in
            let whole = ns.substring(with: match.range)
            let name = ns.substring(with: match.range(at: 1))
            let value = ns.substring(with: match.range(at: 2))
            guard isSecretName(name), !value.hasSuffix("…") else { return whole }
            let lead = whole.hasPrefix(name) ? "" : String(whole.prefix(1))
            return "\(lead)\(name)=\(elide(value))"
        }
        out = replace(jwt, in: out) { match, ns in
            let token = ns.substring(with: match.range)
            // Dotted names (`api.tvl.example`) are not tokens: a JWT segment is long.
            let segments = token.split(separator: ".", omittingEmptySubsequences: false)
            guard segments.count >= 3, segments.prefix(2).allSatisfy({ $0.count >= 16 }) else { return token }
            return elide(token)
        }
        return out
    }

    private static func replace(
        _ regex: NSRegularExpression, in text: String, with transform: (NSTextCheckingResult, NSString) -> String
    ) -> String {
        let ns = text as NSString
        let matches = regex.matches(in: text, range: NSRange(location: 0, length: ns.length))
        guard !matches.isEmpty else { return text }
        var result = ""
        var cursor = 0
        for match in matches {
            result += ns.substring(with: NSRange(location: cursor, length: match.range.location - cursor))
            result += transform(match, ns)
            cursor = match.range.location + match.range.length
        }
        result += ns.substring(from: cursor)
        return result
    }

    /// A redacted excerpt of a body: at most `excerptLimit` bytes (cut at a character
    /// boundary), with `…` appended when cut. Non-UTF-8 bodies are described, not dumped.
    public static func excerpt(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        guard let text = String(validating: body, as: UTF8.self) else {
            return "<\(body.count) bytes, not UTF-8>"
        }
        return excerpt(text)
    }

    public static func excerpt(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        let redacted = Redaction.text(text)
        if redacted.utf8.count <= excerptLimit { return redacted }
        var out = ""
        var bytes = 0
        for character in redacted {
            let size = character.utf8.count
            if bytes + size > excerptLimit - 3 { break }
            out.append(character)
            bytes += size
        }
        return out + "…"
    }

}
