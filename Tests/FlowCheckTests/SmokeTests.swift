import Testing
@testable import FlowCheck

@Test func schemaVersionIsPositive() {
    #expect(FlowCheck.reportSchemaVersion >= 1)
}
