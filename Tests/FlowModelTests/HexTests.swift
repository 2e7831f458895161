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
        // A sequence with no contiguous storage takes the other way to the same text.
        #expect(Hex.string((0..<4).lazy.map { UInt8($0 * 0x41) }) == "004182c3")
        #expect(Hex.string(Array(0...255).lazy.map { UInt8($0) }, uppercase: true) == (0...255).map { String(format: "%02X", $0) }.joined())
    }
}
