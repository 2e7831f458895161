/// Scans of UTF-8 text sixteen bytes at a time (SIMD registers): the scan passes every block in
/// which no byte is a candidate, and the caller reads the rest byte by byte. For escapers and
/// scanners where most of the text needs nothing done. The tests compare vectors with vectors
/// and reduce a mask by its bits: the stdlib's `.== scalar` and `any` go lane by lane (measured:
/// an escaper written with them ran at twice the instructions of the byte loop).
public enum ByteBlocks {
    public typealias Block = SIMD16<UInt8>
    public typealias Mask = SIMDMask<SIMD16<Int8>>

    /// The start of the first 16-byte block, from `start` on, in which `candidates` marks a byte,
    /// or of the last bytes (fewer than 16): every byte before it is one `candidates` passes.
    @inlinable @inline(__always)
    public static func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ candidates: (Block) -> Mask) -> Int {
        guard let base = UnsafeRawPointer(bytes.baseAddress) else { return start }
        var index = start
        while index + 16 <= bytes.count {
            if isAny(candidates(base.loadUnaligned(fromByteOffset: index, as: Block.self))) { break }
            index += 16
        }
        return index
    }

    /// `skip`, the last bytes (fewer than 16) included: they are tested as one block filled up
    /// with `padding`, a byte `candidates` must pass. A text shorter than 16 bytes, or the tail
    /// of a longer one, is then passed in one test: `bytes.count` when no byte from `start` on
    /// is a candidate.
    @inlinable @inline(__always)
    public static func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, padding: UInt8, _ candidates: (Block) -> Mask) -> Int {
        let index = skip(bytes, from: start, candidates)
        guard index < bytes.count, bytes.count - index < 16 else { return index }
        var block = Block(repeating: padding)
        withUnsafeMutableBytes(of: &block) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[index...])) }
        return isAny(candidates(block)) ? index : bytes.count
    }

    /// The lanes of `block` that are `byte`.
    @inlinable @inline(__always)
    public static func equal(_ block: Block, _ byte: UInt8) -> Mask { block .== Block(repeating: byte) }

    /// The lanes of `block` below `byte`.
    @inlinable @inline(__always)
    public static func below(_ block: Block, _ byte: UInt8) -> Mask { block .< Block(repeating: byte) }

    /// Whether any lane of `mask` is set.
    @inlinable @inline(__always)
    public static func isAny(_ mask: Mask) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// Bytes `TerminalText.mayStartMark` may take (a C0 control, DEL, or the lead byte C2, E2 or
    /// EF), tab, newline and carriage return included.
    @inlinable @inline(__always)
    public static func mayStartMark(_ block: Block) -> Mask {
        below(block, 0x20) .| equal(block, 0x7F) .| equal(block, 0xC2) .| equal(block, 0xE2) .| equal(block, 0xEF)
    }
}

extension ByteBlocks {
    /// The lanes of `block` at or above `byte`.
    @inlinable @inline(__always)
    public static func atLeast(_ block: Block, _ byte: UInt8) -> Mask { block .>= Block(repeating: byte) }

    /// Whether `bytes` are UTF-8 (RFC 3629: no overlong form, no surrogate, nothing past
    /// U+10FFFF) with no NUL byte. ASCII is passed sixteen bytes at a time; the standard
    /// library has no check that does not also copy the bytes into a String.
    public static func isUTF8WithoutNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            index = skip(bytes, from: index) { equal($0, 0) .| atLeast($0, 0x80) }
            let blockEnd = Swift.min(index + 16, bytes.count)
            while index < blockEnd {
                let lead = bytes[index]
                if lead < 0x80 {
                    if lead == 0 { return false }
                    index += 1
                    continue
                }
                let length: Int, low: UInt8, high: UInt8
                switch lead {
                case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
                case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE, 0xEF: (length, low, high) = (3, 0x80, 0xBF)
                case 0xED: (length, low, high) = (3, 0x80, 0x9F)
                case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
                case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
                case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
                default: return false
                }
                guard index + length <= bytes.count, (low...high).contains(bytes[index + 1]) else { return false }
                for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
                index += length
            }
        }
        return true
    }
}
