/// FlowMocks: the mock identity provider (flowspec plays Apple) and the embedded mock backend
/// derived from the flow specs. See docs/mocks.md for endpoints, forgeries and defects.
///
/// Not for production: the provider signs with throwaway keys generated per run, and the
/// backend is only as smart as the specs it is derived from.
public enum FlowMocks {
    /// `iss` of every Apple token, and `aud` of every `client_secret`.
    public static let appleIssuer = "https://appleid.apple.com"
    /// Longest `client_secret` lifetime Apple accepts (`exp` ≤ now + this), in seconds.
    public static let maxClientSecretLifetime: Int64 = 15_777_000
    /// Lifetime of an authorization code, in seconds (single use).
    public static let codeLifetime: Int64 = 300
}
