/// A 128-bit content fingerprint for the incremental build cache: not cryptographic, but fast
/// (8 bytes per step) and stable across runs and machines, which is all a cache key needs.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    public private(set) var high: UInt64
    public private(set) var low: UInt64

    public init() {
        high = 0x243F_6A88_85A3_08D3
        low = 0x1319_8A2E_0370_7344
    }

    public init<S: Sequence>(_ parts: S) where S.Element == String {
        self.init()
        for part in parts { combine(part) }
    }

    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var h1 = high ^ UInt64(truncatingIfNeeded: bytes.count)
        var h2 = low &+ UInt64(truncatingIfNeeded: bytes.count)
        let words = bytes.count / 8
        var i = 0
        while i < words {
            let word = bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
            h1 = Self.mix(h1 ^ word, 0x9E37_79B9_7F4A_7C15)
            h2 = Self.mix(h2 &+ word, 0xC2B2_AE3D_27D4_EB4F)
            i += 1
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        for index in (words * 8)..<bytes.count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
        }
        h1 = Self.mix(h1 ^ tail ^ 0xFF, 0x9E37_79B9_7F4A_7C15)
        h2 = Self.mix(h2 &+ tail &+ 0xFF, 0xC2B2_AE3D_27D4_EB4F)
        high = h1 ^ (h2 >> 29)
        low = h2 ^ (h1 >> 31)
    }

    public mutating func combine(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { combine($0) }
    }

    public mutating func combine(_ text: String) {
        var text = text
        text.withUTF8 { combine(UnsafeRawBufferPointer($0)) }
    }

    public mutating func combine(_ hash: ContentHash) {
        combine(hash.description)
    }

    private static func mix(_ value: UInt64, _ multiplier: UInt64) -> UInt64 {
        var x = value &* multiplier
        x ^= x >> 32
        x = x &* 0xD6E8_FEB8_6659_FD93
        x ^= x >> 29
        return x
    }

    public var description: String {
        Self.hex(high) + Self.hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public static func of(_ bytes: [UInt8]) -> ContentHash {
        var hash = ContentHash()
        hash.combine(bytes)
        return hash
    }

    public static func of(_ text: String) -> ContentHash {
        var hash = ContentHash()
        hash.combine(text)
        return hash
    }
}
