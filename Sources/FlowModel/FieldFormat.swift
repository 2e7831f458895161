// The binary format of flowspec's caches: a version line, then fields, each a 4-byte
// little-endian length and its UTF-8 bytes (no escaping, no scanning). Read back with every
// read bounds-checked: a damaged cache reads as nil, never as a crash.

/// Writes a version line, then fields as a 4-byte little-endian length and the UTF-8 bytes.
public struct FieldWriter: Sendable {
    public var bytes: [UInt8] = []

    @inlinable public init() {}

    @inlinable public mutating func reserve(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    @inlinable public mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0x0A)
    }

    @inlinable public mutating func count(_ value: Int) {
        let value = UInt32(truncatingIfNeeded: value)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    @inlinable public mutating func field(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// A field that is already UTF-8 bytes.
    @inlinable public mutating func field(bytes value: [UInt8]) {
        count(value.count)
        bytes.append(contentsOf: value)
    }
}

/// Reads what `FieldWriter` wrote; every read is bounds-checked (nil on a damaged file).
public struct FieldReader: Sendable {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var position = 0

    @inlinable public init(_ bytes: [UInt8]) { self.bytes = bytes }

    @inlinable public var atEnd: Bool { position == bytes.count }
    @inlinable public var remaining: Int { bytes.count - position }

    @inlinable public mutating func line() -> String? {
        guard let end = bytes[position...].firstIndex(of: 0x0A) else { return nil }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    @inlinable public mutating func count() -> Int? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 { value |= UInt32(bytes[position + offset]) << UInt32(offset * 8) }
        position += 4
        return Int(value)
    }

    /// A field's bytes as they are: for a field that is only ever written out again, whose
    /// UTF-8 need not be checked (a search shard's cached fragments are megabytes).
    @inlinable public mutating func bytesField() -> [UInt8]? {
        guard let length = count(), bytes.count - position >= length else { return nil }
        defer { position += length }
        return Array(bytes[position..<(position + length)])
    }

    @inlinable public mutating func field() -> String? {
        guard let length = count(), bytes.count - position >= length else { return nil }
        defer { position += length }
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[position..<(position + length)]), as: UTF8.self)
        }
    }
}
