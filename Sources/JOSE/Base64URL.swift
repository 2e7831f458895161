/// Unpadded base64url (RFC 4648 §5) as JOSE uses it (RFC 7515 §2).
///
/// Decoding is strict on purpose: the checker must be able to tell a verifier that
/// accepts `=` padding, the `+`/`/` alphabet, whitespace or non-zero trailing bits
/// from one that does not. Not a general base64 codec.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(index) }
        return table
    }()

    /// Encodes without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes strictly: only `A–Z a–z 0–9 - _`, no padding, no whitespace, a length
    /// that base64 can produce, and zero bits in the unused tail. Returns nil otherwise.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        if input.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = reverse[Int(byte)]
            if value < 0 { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Non-canonical encodings ("AR" for 0x01) carry set bits that decode would drop.
        if accumulator != 0 { return nil }
        return out
    }
}
