import Testing
@testable import FlowMocks

@Test func issuerIsApple() {
    #expect(FlowMocks.appleIssuer == "https://appleid.apple.com")
}
