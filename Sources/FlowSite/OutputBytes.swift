/// Markup being written: UTF-8 bytes in a buffer this value owns. It is `~Copyable`, so the
/// buffer has one owner and is freed with it; a byte is stored and counted with nothing else to
/// check. An Array checks that its storage is unique and large enough on every append (about 70
/// instructions for a piece, 10 for a byte), and a page is written in some 2 500 pieces and a
/// diagram in 2 000 (`SVGWriter`, the template renderer, the escaper).
struct OutputBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// How many bytes are written.
    private(set) var count = 0
    private var capacity: Int
    /// Where the bytes go in pieces (`spillIfFull`), for a page too large to hold whole.
    private let spill: Spill?

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        spill = nil
    }

    /// Bytes written into a buffer of about `spill.threshold` bytes, handed to the spill's sink
    /// each time it holds that many (at `spillIfFull`) and at the end (`spillRest`).
    init(spillingTo spill: Spill) {
        capacity = max(spill.threshold + spill.threshold / 4, 64)
        base = .allocate(capacity: capacity)
        self.spill = spill
    }

    /// A sink that takes a page in pieces. Its first error is kept, and nothing more is handed
    /// to it after one.
    final class Spill {
        let threshold: Int
        let sink: (UnsafeRawBufferPointer) throws -> Void
        private(set) var failure: (any Swift.Error)?

        init(threshold: Int, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
            self.threshold = max(threshold, 1)
            self.sink = sink
        }

        fileprivate func take(_ bytes: UnsafeRawBufferPointer) {
            guard failure == nil else { return }
            do { try sink(bytes) } catch { failure = error }
        }
    }

    /// Hands the bytes written so far to the spill when it holds at least its threshold of them,
    /// and starts again from an empty buffer. Call it only where no byte written before will be
    /// read or moved again (between the parts of a value written as it is, outside any
    /// indentation). Without a spill, nothing happens.
    mutating func spillIfFull() {
        guard let spill, count >= spill.threshold else { return }
        spill.take(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// Hands what is left to the spill (if any); rethrows its sink's first error.
    mutating func spillRest() throws {
        guard let spill else { return }
        if count > 0 { spill.take(UnsafeRawBufferPointer(start: base, count: count)) }
        count = 0
        if let failure = spill.failure { throw failure }
    }

    deinit { base.deallocate() }

    /// The bytes written, as an Array.
    var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written, lent to `body` where they are (a page goes to its file without the
    /// Array copy `bytes` makes: 69 KB a page).
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes written, as a String (valid UTF-8 is kept as it is).
    var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// The byte at `index` (`index < count`).
    subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "OutputBytes index out of range")
        return base[index]
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        let grown = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        (base + count).initialize(from: source, count: buffer.count)
        count += buffer.count
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func append(contentsOf other: borrowing OutputBytes) {
        append(contentsOf: UnsafeBufferPointer(start: other.base, count: other.count))
    }

    /// A String's UTF-8 bytes.
    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// A constant of the code (names such as `x` or `class`, most of them shorter than a call to
    /// copy them: their bytes are stored one by one).
    @inline(__always)
    mutating func append(_ constant: StaticString) {
        guard constant.hasPointerRepresentation else { return constant.withUTF8Buffer { append(contentsOf: $0) } }
        let length = constant.utf8CodeUnitCount
        reserve(length)
        let source = constant.utf8Start
        for offset in 0..<length { base[count + offset] = source[offset] }
        count += length
    }

    /// ` name="`, an attribute's start: one capacity check for the five or so bytes.
    @inline(__always)
    mutating func append(attributeStart name: StaticString) {
        guard name.hasPointerRepresentation else {
            append(UInt8(ascii: " "))
            append(name)
            append(UInt8(ascii: "="))
            return append(UInt8(ascii: "\""))
        }
        reserve(name.utf8CodeUnitCount + 3)
        base[count] = UInt8(ascii: " ")
        count += 1
        append(name)
        base[count] = UInt8(ascii: "=")
        base[count + 1] = UInt8(ascii: "\"")
        count += 2
    }

    /// `bytes` put before the byte at `index` (`index <= count`), what follows moved after them.
    mutating func insert(contentsOf bytes: [UInt8], at index: Int) {
        precondition(index >= 0 && index <= count, "OutputBytes insertion point out of range")
        guard !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + index + bytes.count).copyMemory(from: base + index, byteCount: count - index)  // may overlap: memmove
        bytes.withUnsafeBufferPointer { (base + index).update(from: $0.baseAddress!, count: $0.count) }
        count += bytes.count
    }

    /// An integer's decimal digits, as `String(number)` writes them.
    mutating func append(digitsOf number: Int) {
        reserve(20)
        if number < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = number.magnitude
        // Coordinates and sizes, most numbers here: up to four digits, stored one by one.
        if magnitude < 10_000 {
            let zero = UInt8(ascii: "0")
            if magnitude >= 1_000 { base[count] = zero + UInt8(magnitude / 1_000); count += 1 }
            if magnitude >= 100 { base[count] = zero + UInt8(magnitude / 100 % 10); count += 1 }
            if magnitude >= 10 { base[count] = zero + UInt8(magnitude / 10 % 10); count += 1 }
            base[count] = zero + UInt8(magnitude % 10)
            count += 1
            return
        }
        var width = 1
        var limit: UInt = 10
        while width < 19, magnitude >= limit {  // 10^19 is the last power of ten a UInt holds
            width += 1
            limit &*= 10
        }
        var index = count + width
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += width
    }
}

extension OutputBytes: EscapedOutput {
    mutating func truncate(to length: Int) { count = min(count, max(length, 0)) }
}
