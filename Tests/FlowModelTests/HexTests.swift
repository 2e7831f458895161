import Foundation
import Testing
@testable import FlowModel

/// `Hex` writes what `String(format:)` wrote before it replaced it (digests, ids, percent-escapes).
@Suite struct HexTests {
    @Test func everyByteAsFoundationFormatsIt() {
        for byte in UInt8.min...UInt8.max {
            #expect(Hex.string([byte]) == String(format: "%02x", byte))
            #expect(Hex.string(CollectionOfOne(byte), uppercase: true) == String(format: "%02X", byte))
        }
        #expect(Hex.string([0x00, 0xAB, 0x10, 0xFF]) == "00ab10ff")
        #expect(Hex.string([UInt8]()) == "")
    }
}
