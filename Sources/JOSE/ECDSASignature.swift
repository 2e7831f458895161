/// Conversion between the two ECDSA signature encodings: DER `SEQUENCE { r INTEGER, s INTEGER }`
/// (what OpenSSL and X.509 use) and the fixed-width `r ‖ s` JOSE requires (RFC 7518 §3.4).
/// DER parsing is strict (minimal lengths and integers, no trailing bytes).
public enum ECDSASignature {
    /// DER → `r ‖ s`, each left-padded to `coordinateSize` bytes.
    public static func rawFromDER(_ der: [UInt8], coordinateSize: Int = 32) throws(JOSEError) -> [UInt8] {
        var index = 0
        func byte() throws(JOSEError) -> UInt8 {
            guard index < der.count else { throw .invalidSignatureEncoding("DER ends early") }
            defer { index += 1 }
            return der[index]
        }
        func length() throws(JOSEError) -> Int {
            let first = try byte()
            if first < 0x80 { return Int(first) }
            guard first == 0x81 else { throw .invalidSignatureEncoding("DER length form not allowed here") }
            let value = try byte()
            guard value >= 0x80 else { throw .invalidSignatureEncoding("non-minimal DER length") }
            return Int(value)
        }
        func integer() throws(JOSEError) -> [UInt8] {
            guard try byte() == 0x02 else { throw .invalidSignatureEncoding("expected INTEGER") }
            let count = try length()
            guard count > 0, index + count <= der.count else { throw .invalidSignatureEncoding("bad INTEGER length") }
            var value = Array(der[index..<index + count])
            index += count
            if value[0] & 0x80 != 0 { throw .invalidSignatureEncoding("negative INTEGER") }
            if value.count > 1 && value[0] == 0 && value[1] & 0x80 == 0 { throw .invalidSignatureEncoding("non-minimal INTEGER") }
            if value.count > 1 && value[0] == 0 { value.removeFirst() }
            guard value.count <= coordinateSize else { throw .invalidSignatureEncoding("INTEGER wider than the curve") }
            return [UInt8](repeating: 0, count: coordinateSize - value.count) + value
        }
        guard try byte() == 0x30 else { throw .invalidSignatureEncoding("expected SEQUENCE") }
        let sequenceLength = try length()
        guard index + sequenceLength == der.count else { throw .invalidSignatureEncoding("SEQUENCE length does not match") }
        let r = try integer()
        let s = try integer()
        guard index == der.count else { throw .invalidSignatureEncoding("trailing bytes") }
        return r + s
    }

    /// `r ‖ s` (even length) → minimal DER.
    public static func derFromRaw(_ raw: [UInt8]) throws(JOSEError) -> [UInt8] {
        guard !raw.isEmpty, raw.count % 2 == 0 else { throw .invalidSignatureEncoding("raw signature length \(raw.count) is not even") }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02] + encodeLength(value.count) + value
        }
        let half = raw.count / 2
        let body = integer(raw[..<half]) + integer(raw[half...])
        return [0x30] + encodeLength(body.count) + body
    }

    private static func encodeLength(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var value = count
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
