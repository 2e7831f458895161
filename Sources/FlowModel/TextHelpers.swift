import Foundation

/// Small text helpers used across the package, each written once.
public enum Suggestion {
    /// The candidate within edit distance 2 of `word` (case-insensitive, and closer than the
    /// word's own length), for "did you mean …?" hints.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = Array(word.lowercased())
        return candidates.map { ($0, editDistance(lowered, Array($0.lowercased()))) }
            .filter { $0.1 <= 2 && $0.1 < Swift.max(lowered.count, 1) }
            .min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance over characters.
    public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Bytes as hexadecimal digits, two per byte.
public enum Hex {
    /// `uppercase` false: `0-9a-f` (digests, ids); true: `0-9A-F` (percent-encoding). A table
    /// lookup per digit: `String(format: "%02x")` went through Foundation's varargs formatting, a
    /// dynamic cast per argument, and was 4 % of a check's instructions.
    ///
    /// Contiguous bytes (an array: a digest) are written straight into the String's storage:
    /// called from other modules, the generic loop went through the sequence's witnesses for each
    /// byte, 13 000 instructions for a 32-byte digest.
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ string(buffer: $0, uppercase: uppercase) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { string(buffer: $0, uppercase: uppercase) }
    }

    private static func string(buffer: UnsafeBufferPointer<UInt8>, uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return String(unsafeUninitializedCapacity: buffer.count * 2) { out in
            digits.withUTF8Buffer { table in
                for (index, byte) in buffer.enumerated() {
                    out[2 * index] = table[Int(byte >> 4)]
                    out[2 * index + 1] = table[Int(byte & 0x0F)]
                }
            }
            return buffer.count * 2
        }
    }
}

extension String {
    /// Without leading and trailing whitespace (Unicode's, newlines included): whole Characters
    /// whose first scalar is White_Space, as `Character.isWhitespace` says.
    public func trimmingCharacters() -> String {
        var text = self
        if let trimmed = text.withUTF8({ Self.byteTrim($0) }) {
            guard let range = trimmed else { return self }
            return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }

    /// The trim on UTF-8 bytes where it is the Character trim: `.some(nil)` when nothing is to
    /// be trimmed, `.some(range)` when only ASCII whitespace is, nil otherwise (the Character
    /// loop decides). ASCII whitespace next to an ASCII byte is a Character of its own (or CR LF,
    /// whitespace too): the grapheme rules join a space only to a following Extend, ZWJ or
    /// SpacingMark scalar (GB9, GB9a), all non-ASCII, or to a preceding Prepend one (GB9b), all
    /// non-ASCII. At the ends: the first Character starts with the first scalar; the last one
    /// starts with the last scalar when that is below U+0300 or Latin Extended Additional
    /// (U+1E00–U+1EFF, Vietnamese): no Extend, ZWJ or SpacingMark is there, and anything else
    /// that could come before it in one Character (a Prepend) is not whitespace.
    private static func byteTrim(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>?? {
        var start = 0
        while start < bytes.count, bytes[start].isASCIIWhitespace { start += 1 }
        guard let end = byteTrimEnd(bytes, from: start) else { return nil }
        if start == end { return .some(start..<end) }
        // What the trim stops at must be what the Character trim stops at.
        if start > 0 ? bytes[start] >= 0x80 : isWhiteSpaceScalar(UTF8Scalar.value(startingAt: 0, in: bytes)) { return nil }
        return start == 0 && end == bytes.count ? .some(nil) : .some(start..<end)
    }

    /// Where the Character trim of trailing whitespace ends, on bytes, not before `start`; nil
    /// when the bytes cannot tell (see `byteTrim`).
    private static func byteTrimEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var end = bytes.count
        while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
        if start == end { return end }
        if end < bytes.count {
            if bytes[end - 1] >= 0x80 { return nil }
        } else if bytes[end - 1] >= 0x80 {
            let last = UTF8Scalar.value(endingAt: bytes.count, in: bytes)
            if isWhiteSpaceScalar(last) || !(last < 0x300 || (0x1E00...0x1EFF).contains(last)) { return nil }
        }
        return end
    }

    /// Without trailing whitespace (whole Characters whose first scalar is White_Space).
    public func trimmingTrailingWhitespace() -> String {
        var text = self
        if let end = text.withUTF8({ Self.byteTrimEnd($0, from: 0) }) {
            if end == utf8.count { return self }
            return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[..<end]), as: UTF8.self) }
        }
        var slice = Substring(self)
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }


    /// Unicode's White_Space scalars (a fixed set).
    private static func isWhiteSpaceScalar(_ value: UInt32) -> Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

/// Searching and replacing text on UTF-8 bytes: exact matches, no Unicode equivalence (the
/// right thing for quoting, where every `'` or `<` must be found), and no bridging to NSString
/// (Foundation's `replacingOccurrences` and `contains` cost 25 000–50 000 instructions a call here).
extension String {
    /// The parts between occurrences of `separator` (never empty). Split on UTF-8 bytes: a
    /// separator's first byte is never a continuation byte, so matches fall on scalar
    /// boundaries, as they did when this compared scalars.
    public func components(separatedByString separator: String) -> [String] {
        let needle = Array(separator.utf8)
        guard let first = needle.first else { return [self] }
        var parts: [String] = []
        var text = self
        text.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index + needle.count <= bytes.count {
                if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                    parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                    index += needle.count
                    start = index
                } else {
                    index += 1
                }
            }
            parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
        }
        return parts
    }

    /// This text with every occurrence of `target` replaced by `replacement`.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, utf8Contains(target) else { return self }
        return components(separatedByString: target).joined(separator: replacement)
    }
}

extension String {
    /// Compares the UTF-8 bytes (negative, zero, positive): a deterministic order that is
    /// Unicode scalar order for NFC text, without `<`'s canonical-equivalence work (sorting 2 000
    /// non-ASCII titles with `<` and `!=` took most of a warm site rebuild's ordering phase).
    public func utf8Compare(_ other: String) -> Int {
        let fast = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs -> Int in
                let common = Swift.min(lhs.count, rhs.count)
                if common > 0, let a = lhs.baseAddress, let b = rhs.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return Int(order) }
                }
                return lhs.count - rhs.count
            }
        }
        if let fast = fast ?? nil { return fast }
        for (a, b) in zip(utf8, other.utf8) where a != b { return Int(a) - Int(b) }
        return utf8.count - other.utf8.count
    }

    /// Whether every byte is ASCII: then each byte is a scalar and a Character (CR LF aside), so
    /// a byte split or test on an ASCII separator is the Character one.
    /// Eight bytes at a time (`allSatisfy` over the UTF-8 view took a dozen instructions a byte).
    public var isASCII: Bool {
        utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let base = UnsafeRawPointer(bytes.baseAddress) else { return true }
            var index = 0
            while index + 8 <= bytes.count {
                if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                index += 8
            }
            while index < bytes.count {
                if bytes[index] >= 0x80 { return false }
                index += 1
            }
            return true
        } ?? utf8.allSatisfy { $0 < 0x80 }
    }

    /// Whether the text's UTF-8 holds `byte`: one `memchr` over the contiguous bytes (going
    /// through `utf8` as a Sequence costs a dozen instructions a byte).
    public func utf8Contains(byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        } ?? utf8.contains(byte)
    }

    /// Whether `needle`'s UTF-8 bytes occur in this string's (a scalar-exact search: no
    /// Foundation `range(of:)` and its canonical-equivalence work).
    public func utf8Contains(_ needle: String) -> Bool {
        var haystack = self
        var needle = needle
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard let nb = n.baseAddress, !n.isEmpty else { return true }
                guard let hb = h.baseAddress, h.count >= n.count else { return false }
                let first = n[0]
                for index in 0...(h.count - n.count) where h[index] == first {
                    if memcmp(hb + index, nb, n.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// `utf8Compare(other) < 0`.
    public func utf8Precedes(_ other: String) -> Bool { utf8Compare(other) < 0 }
}

extension ArraySlice<UInt8> {
    /// Whether the bytes hold `byte`: one `memchr` (the generic `contains` costs several
    /// instructions a byte).
    public func containsByte(_ byte: UInt8) -> Bool {
        withUnsafeBufferPointer { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        }
    }
}

/// The value of one scalar read from valid UTF-8 bytes, forwards or backwards: for byte scans
/// that look at a scalar next to the byte they stopped at.
public enum UTF8Scalar {
    /// The scalar whose UTF-8 starts at `index`.
    public static func value(startingAt index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let lead = bytes[index]
        if lead < 0x80 { return UInt32(lead) }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length where index + offset < bytes.count { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return value
    }

    /// The scalar whose UTF-8 ends just before `end`.
    public static func value(endingAt end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var start = end - 1
        while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return value(startingAt: start, in: bytes)
    }
}

extension String {
    /// `lowercased()`, written as bytes: ASCII by arithmetic; a scalar past ASCII copied when it
    /// does not change when lowercased (Unicode's Changes_When_Lowercased, which is exactly
    /// "its lowercase mapping is not itself" for every scalar: the test checks them all), else
    /// replaced by its `lowercaseMapping` — the mapping `lowercased()` appends scalar by scalar,
    /// one String append each (700 instructions a scalar of Vietnamese or Turkish text).
    public func lowercasedOnBytes() -> String {
        var text = self
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x80 {
                    out.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
                    index += 1
                    continue
                }
                let end = Swift.min(index + (byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4), bytes.count)
                if let scalar = Unicode.Scalar(UTF8Scalar.value(startingAt: index, in: bytes)), scalar.properties.changesWhenLowercased {
                    out.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
                } else {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                }
                index = end
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

extension UInt8 {
    /// Space, tab, line feed, vertical tab, form feed, carriage return: the ASCII bytes that are
    /// White_Space (and `Character.isWhitespace`).
    @inlinable
    public var isASCIIWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
}
