import Testing
import TestSupport
@testable import FlowSite

/// Text widths read from the ASCII table are the advance rule's (written out below, as the
/// diagrams' layout has it).
@Suite struct TextMetricsTests {
    static func advance(_ value: UInt32) -> Int {
        switch value {
        case 0x6D, 0x77, 0x4D, 0x57, 0x40, 0x25: 100
        case 0x41...0x5A: 78
        case 0x0300...0x036F: 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0x1F300...0x1FAFF: 100
        default: 62
        }
    }

    @Test func unitsAreTheSumOfScalarAdvances() {
        // Every ASCII scalar on its own.
        for value in UInt32(0)..<128 {
            let text = String(Character(Unicode.Scalar(value)!))
            #expect(TextMetrics.units(text) == Self.advance(value), "U+\(String(value, radix: 16))")
        }
        let alphabet = ["a", "m", "W", "@", "%", "Z", " ", "é", "\u{301}", "漢", "👍", "Đăng", "ş", "\u{1100}", "~", "\t"]
        var random = SplitMix(seed: 71)
        for _ in 0..<5000 {
            let text = (0..<random.next(12)).map { _ in alphabet[random.next(alphabet.count)] }.joined()
            #expect(TextMetrics.units(text) == text.unicodeScalars.reduce(0) { $0 + Self.advance($1.value) }, "\(text.debugDescription)")
        }
    }
}
