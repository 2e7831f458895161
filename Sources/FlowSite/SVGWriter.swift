import FlowModel

/// An SVG attribute's value: a constant of the diagram code, text (an interpolation, or a
/// value from the spec), or a number, written as its digits. All text is escaped as it is
/// written; constants and numbers make no String (a diagram writes thousands of attributes).
enum SVGValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    case literal(StaticString)
    case text(String)
    case number(Int)

    init(stringLiteral value: StaticString) { self = .literal(value) }

    init(stringInterpolation: Interpolation) { self = .text(stringInterpolation.text) }

    /// `"M\(x),\(y)"`: a text made of the literal's pieces and the values' descriptions.
    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 8 * interpolationCount) }

        mutating func appendLiteral(_ literal: StaticString) { text += literal.description }

        mutating func appendInterpolation(_ value: some CustomStringConvertible) { text += value.description }
    }
}

/// Tiny helper to assemble SVG markup. Text content and attribute values are escaped here; the
/// element names and attribute names are constants in the diagram code (`StaticString`: their
/// bytes are copied as they are, no String made or measured).
///
/// The markup is kept in a buffer the writer owns. It is `~Copyable`, so the buffer has one owner
/// and is freed with it. A byte is stored and counted with nothing else to check: an Array
/// checks that its storage is unique and large enough on every append, about 70 instructions
/// for a piece of markup and 10 for a byte, and a diagram is made of some 2 000 small pieces.
struct SVGWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// How many bytes are written.
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 16_384) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The markup so far, as UTF-8 bytes.
    var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

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

    /// Markup written by the diagram code itself (names such as `x` or `class`, most of them
    /// shorter than a call to copy them: their bytes are stored one by one).
    @inline(__always)
    mutating func raw(_ markup: StaticString) {
        guard markup.hasPointerRepresentation else { return markup.withUTF8Buffer { append(contentsOf: $0) } }
        let length = markup.utf8CodeUnitCount
        reserve(length)
        let source = markup.utf8Start
        for offset in 0..<length { base[count + offset] = source[offset] }
        count += length
    }

    /// A constant value of the diagram code: as it is when no byte of it is escaped or may start
    /// a mark (all of them so far), otherwise through the escaper.
    private mutating func literal(_ value: StaticString) {
        guard value.hasPointerRepresentation else { return HTML.appendEscaped(value, to: &self) }
        let source = value.utf8Start
        for offset in 0..<value.utf8CodeUnitCount {
            switch source[offset] {
            case 0x26, 0x3C, 0x3E, 0x22, 0x27, 0..<0x20, 0x7F...: return HTML.appendEscaped(value, to: &self)
            default: continue
            }
        }
        raw(value)
    }

    /// `text` escaped (`HTML.appendEscaped`).
    mutating func escaped(_ text: String) { HTML.appendEscaped(text, to: &self) }

    mutating func raw(_ markup: String) {
        var markup = markup
        markup.withUTF8 { append(contentsOf: $0) }
    }

    mutating func raw(_ other: borrowing SVGWriter) {
        append(contentsOf: UnsafeBufferPointer(start: other.base, count: other.count))
    }

    mutating func raw(bytes markup: [UInt8]) {
        markup.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func open(_ name: StaticString, _ attributes: KeyValuePairs<StaticString, SVGValue> = [:]) {
        append(UInt8(ascii: "<"))
        raw(name)
        appendAttributes(attributes)
        append(UInt8(ascii: ">"))
    }

    private mutating func appendAttributes(_ attributes: KeyValuePairs<StaticString, SVGValue>) {
        for (key, value) in attributes {
            append(UInt8(ascii: " "))
            raw(key)
            append(UInt8(ascii: "="))
            append(UInt8(ascii: "\""))
            switch value {
            case .literal(let text): literal(text)
            case .text(let text): HTML.appendEscaped(text, to: &self)
            case .number(let number): digits(number)
            }
            append(UInt8(ascii: "\""))
        }
    }

    /// An integer's decimal digits, as `String(number)` writes them.
    mutating func digits(_ number: Int) {
        reserve(20)
        if number < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = number.magnitude
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

    /// A point of path data after its command (`M0,1`), or after a space (the next point of a
    /// curve: `" "`).
    mutating func path(_ command: StaticString, _ x: Int, _ y: Int) {
        raw(command)
        digits(x)
        append(UInt8(ascii: ","))
        digits(y)
    }

    mutating func close(_ name: StaticString) {
        append(UInt8(ascii: "<"))
        append(UInt8(ascii: "/"))
        raw(name)
        append(UInt8(ascii: ">"))
    }

    mutating func element(_ name: StaticString, _ attributes: KeyValuePairs<StaticString, SVGValue>, text: String? = nil) {
        append(UInt8(ascii: "<"))
        raw(name)
        appendAttributes(attributes)
        if let text {
            append(UInt8(ascii: ">"))
            HTML.appendEscaped(text, to: &self)
            close(name)
        } else {
            append(UInt8(ascii: "/"))
            append(UInt8(ascii: ">"))
        }
    }

    /// Multi-line text: one `<tspan>` per line, `lineHeight` apart (17 px: 1.3 em at 13 px, so the
    /// boxes of consecutive lines do not touch even with Vietnamese stacked diacritics), first
    /// baseline at `y`.
    mutating func text(_ lines: [String], x: Int, y: Int, lineHeight: Int = 17, className: StaticString, anchor: StaticString = "middle") {
        raw("<text class=\"")
        raw(className)
        raw("\" x=\"")
        digits(x)
        raw("\" y=\"")
        digits(y)
        raw("\" text-anchor=\"")
        raw(anchor)
        raw("\">")
        for (index, line) in lines.enumerated() {
            raw("<tspan x=\"")
            digits(x)
            if index > 0 {
                raw("\" dy=\"")
                digits(lineHeight)
            }
            raw("\">")
            HTML.appendEscaped(line, to: &self)
            raw("</tspan>")
        }
        raw("</text>")
    }
}

extension SVGWriter: EscapedOutput {
    mutating func truncate(to length: Int) { count = min(count, length) }
}
