/// Tests on eight bytes at once ("SIMD within a register"), for scans of UTF-8 text where most
/// words need nothing done: each says whether any byte of a little- or big-endian `UInt64` is
/// of a kind. Exact for "any byte", the standard bit tricks (a borrow only runs past a byte
/// that already matched).
public enum SWAR {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether a byte of `word` is `byte`.
    @inlinable @inline(__always)
    public static func contains(_ word: UInt64, _ byte: UInt8) -> Bool {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs != 0
    }

    /// Whether a byte of `word` is below 0x20 (a C0 control, tab and newline included).
    @inlinable @inline(__always)
    public static func containsControl(_ word: UInt64) -> Bool {
        (word &- ones &* 0x20) & ~word & highs != 0
    }

    /// Whether a byte of `word` may start a scalar `TerminalText.marked` replaces
    /// (`TerminalText.mayStartMark`, tab, newline and carriage return included).
    @inlinable @inline(__always)
    public static func mayStartMark(_ word: UInt64) -> Bool {
        containsControl(word) || contains(word, 0x7F) || contains(word, 0xC2) || contains(word, 0xE2) || contains(word, 0xEF)
    }
}
