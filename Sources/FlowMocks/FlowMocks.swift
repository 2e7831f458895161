/// FlowMocks: the mock identity provider (flowspec plays Apple) and the embedded mock backend
/// derived from the flow specs. See docs/mocks.md.
public enum FlowMocks {
    public static let appleIssuer = "https://appleid.apple.com"
}
