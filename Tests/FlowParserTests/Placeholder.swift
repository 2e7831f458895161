import Testing
@testable import FlowModel
@Test func placeholder() { #expect(1 + 1 == 2) }
