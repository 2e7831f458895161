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
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for byte in bytes {
                out.append(table[Int(byte >> 4)])
                out.append(table[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Without leading and trailing whitespace (Unicode's, newlines included).
    public func trimmingCharacters() -> String {
        // Printable ASCII at both ends: nothing to trim. The first Character then starts with that
        // byte, and the last one either is that byte or starts with a Prepend scalar (GB9b); no
        // Prepend scalar is whitespace.
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return self }
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
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
