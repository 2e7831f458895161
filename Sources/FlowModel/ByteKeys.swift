import Foundation

/// Sort keys as bytes in one buffer, compared with `memcmp`: sorting 2 000 spec paths or index
/// entries with a closure over `String`s spent most of its time retaining and releasing them
/// (perf, serve's warm rebuild), a comparison of two slices of one buffer touches no reference
/// count. A key is made of parts; parts compare one after the other, each in byte order, so a
/// key orders like the tuple of its parts.
public struct ByteKeys: Sendable {
    private var bytes: [UInt8] = []
    /// Where each key starts; a key ends where the next one starts, the last at the end.
    private var starts: [Int] = []

    /// `capacity` keys of about `bytesPerKey` bytes each (the buffer is not grown by doubling
    /// while they are made).
    public init(capacity: Int = 0, bytesPerKey: Int = 0) {
        starts.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * bytesPerKey)
    }

    public var count: Int { starts.count }

    /// Starts the next key.
    public mutating func begin() {
        starts.append(bytes.count)
    }

    /// A text part: its UTF-8 bytes, escaped so that a shorter text orders before its
    /// extensions whatever follows it (0 ends the part; 0 and 1 inside become 1 1 and 1 2).
    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            guard Self.holdsZeroOrOne(utf8) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                if byte > 1 {
                    bytes.append(byte)
                } else {
                    bytes.append(1)
                    bytes.append(byte + 1)
                }
            }
        }
        bytes.append(0)
    }

    /// Whether a byte is 0 or 1, eight bytes at a time: a byte below 2 sets its top bit in
    /// `(word - 0x0202…02) & ~word & 0x8080…80`, and no other byte makes the result non-zero
    /// (a borrow only starts at such a byte). A byte-by-byte scan with a closure was most of a
    /// part's 480 instructions (callgrind, the index order of 2 000 flows).
    static func holdsZeroOrOne(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= utf8.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (word &- 0x0202_0202_0202_0202) & ~word & 0x8080_8080_8080_8080 != 0 { return true }
            index += 8
        }
        while index < utf8.count {
            if base[index] <= 1 { return true }
            index += 1
        }
        return false
    }

    /// A number part (non-negative numbers order as numbers; negative ones first).
    public mutating func append(_ number: Int) {
        let biased = UInt64(bitPattern: Int64(number)) ^ (1 << 63)
        // (As typed bytes: an Array appends those with one copy, raw bytes one by one.)
        withUnsafeBytes(of: biased.bigEndian) { bytes.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// A whole key of one text, unescaped (for keys that are one part: paths).
    public mutating func appendKey(bytesOf text: String) {
        starts.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
    }

    /// Positions 0..<count in the order of their keys; equal keys keep their order.
    ///
    /// The bytes every key starts with order nothing and are skipped; each key's next 8 bytes,
    /// read as one big-endian number (0 past the key's end), order most pairs with one integer
    /// comparison, and only ties compare the rest with `memcmp`. (2 000 spec paths, which share
    /// their folder: 2.5 M instructions with a `memcmp` per comparison.)
    public func sortedPositions() -> [Int] {
        let count = starts.count
        guard count > 1, !bytes.isEmpty else { return Array(0..<count) }
        var ends = Array(starts.dropFirst())
        ends.append(bytes.count)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            var shared = ends[0] - starts[0]
            for key in 1..<count where shared > 0 {
                let length = Swift.min(shared, ends[key] - starts[key])
                var index = 0
                while index < length, base[starts[0] + index] == base[starts[key] + index] { index += 1 }
                shared = index
            }
            var items: [(word: UInt64, position: Int)] = []
            items.reserveCapacity(count)
            for key in 0..<count {
                let from = starts[key] + shared
                let available = Swift.min(8, ends[key] - from)
                var word: UInt64 = 0
                for index in 0..<8 { word = word << 8 | (index < available ? UInt64(base[from + index]) : 0) }
                items.append((word, key))
            }
            items.sort { a, b in
                if a.word != b.word { return a.word < b.word }
                let fromA = starts[a.position] + shared, fromB = starts[b.position] + shared
                let lengthA = ends[a.position] - fromA, lengthB = ends[b.position] - fromB
                let common = Swift.min(lengthA, lengthB)
                if common > 0 {
                    let order = memcmp(base + fromA, base + fromB, common)
                    if order != 0 { return order < 0 }
                }
                return lengthA != lengthB ? lengthA < lengthB : a.position < b.position
            }
            return items.map(\.position)
        }
    }
}

extension Array where Element == String {
    /// Sorted in UTF-8 byte order: the same as `sorted()` for NFC text (paths, page names),
    /// without its Unicode work (2 000 page names: 5.6 M instructions with `sorted()`).
    public func sortedByBytes() -> [String] {
        var keys = ByteKeys(capacity: count, bytesPerKey: isEmpty ? 0 : reduce(0) { $0 + $1.utf8.count } / count + 1)
        for text in self { keys.appendKey(bytesOf: text) }
        return keys.sortedPositions().map { self[$0] }
    }
}
