import Foundation

/// Sort keys as bytes in one buffer, compared with `memcmp`: sorting 2 000 spec paths or index
/// entries with a closure over `String`s spent most of its time retaining and releasing them
/// (perf, serve's warm rebuild), a comparison of two slices of one buffer touches no reference
/// count. A key is made of parts; parts compare one after the other, each in byte order, so a
/// key orders like the tuple of its parts.
public struct ByteKeys: Sendable {
    private var bytes: [UInt8] = []
    private var starts: [Int] = []
    private var ends: [Int] = []

    public init(capacity: Int = 0) {
        starts.reserveCapacity(capacity)
        ends.reserveCapacity(capacity)
    }

    public var count: Int { starts.count }

    /// Starts the next key.
    public mutating func begin() {
        starts.append(bytes.count)
        ends.append(bytes.count)
    }

    /// A text part: its UTF-8 bytes, escaped so that a shorter text orders before its
    /// extensions whatever follows it (0 ends the part; 0 and 1 inside become 1 1 and 1 2).
    public mutating func append(_ text: String) {
        var text = text
        let plain = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 <= 1 }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain {
            bytes.append(0)
            ends[ends.count - 1] = bytes.count
            return
        }
        for byte in text.utf8 {
            if byte > 1 {
                bytes.append(byte)
            } else {
                bytes.append(1)
                bytes.append(byte + 1)
            }
        }
        bytes.append(0)
        ends[ends.count - 1] = bytes.count
    }

    /// A number part (non-negative numbers order as numbers; negative ones first).
    public mutating func append(_ number: Int) {
        let biased = UInt64(bitPattern: Int64(number)) ^ (1 << 63)
        withUnsafeBytes(of: biased.bigEndian) { bytes.append(contentsOf: $0) }
        ends[ends.count - 1] = bytes.count
    }

    /// A whole key of one text, unescaped (for keys that are one part: paths).
    public mutating func appendKey(bytesOf text: String) {
        starts.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        ends.append(bytes.count)
    }

    /// Positions 0..<count in the order of their keys.
    public func sortedPositions() -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            starts.withUnsafeBufferPointer { starts in
                ends.withUnsafeBufferPointer { ends in
                    let base = buffer.baseAddress
                    return (0..<starts.count).sorted { a, b in
                        let lengthA = ends[a] - starts[a], lengthB = ends[b] - starts[b]
                        let common = Swift.min(lengthA, lengthB)
                        if common > 0, let base {
                            let order = memcmp(base + starts[a], base + starts[b], common)
                            if order != 0 { return order < 0 }
                        }
                        return lengthA < lengthB
                    }
                }
            }
        }
    }
}

extension Array where Element == String {
    /// Sorted in UTF-8 byte order: the same as `sorted()` for NFC text (paths, page names),
    /// without its Unicode work (2 000 page names: 5.6 M instructions with `sorted()`).
    public func sortedByBytes() -> [String] {
        var keys = ByteKeys(capacity: count)
        for text in self { keys.appendKey(bytesOf: text) }
        return keys.sortedPositions().map { self[$0] }
    }
}
