import Testing
@testable import JOSE
@Test func placeholder() { #expect(1 + 1 == 2) }
