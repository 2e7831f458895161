import FlowMocks
import FlowModel
import Foundation

extension Redaction {
    /// Decodes a compact JWS for evidence: header and claims (secrets inside elided), never the
    /// signature. Nil when `token` does not look like a JWT.
    public static func decodeToken(_ token: String) -> TokenEvidence? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return nil }
        func decode(_ segment: Substring) -> String {
            var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 = base64.replacingOccurrences(of: "=", with: "")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else {
                return "<not base64url JSON: \(segment.prefix(24))…>"
            }
            let limited = text.count > 600 ? String(text.prefix(600)) + "…" : text
            return Redaction.text(limited)
        }
        return TokenEvidence(header: decode(segments[0]), claims: decode(segments[1]), segments: segments.count)
    }
}
