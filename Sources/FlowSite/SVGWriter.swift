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
/// bytes are copied as they are, no String made or measured). The markup is written into
/// `OutputBytes`, so the writer has one owner too.
struct SVGWriter: ~Copyable {
    private var out: OutputBytes

    init(capacity: Int = 16_384) { out = OutputBytes(capacity: capacity) }

    /// How many bytes are written.
    var count: Int { out.count }

    /// The markup so far, as UTF-8 bytes.
    var bytes: [UInt8] { out.bytes }

    @inline(__always)
    mutating func append(_ byte: UInt8) { out.append(byte) }

    /// Markup written by the diagram code itself.
    @inline(__always)
    mutating func raw(_ markup: StaticString) { out.append(markup) }

    mutating func raw(string markup: String) { out.append(utf8: markup) }

    mutating func raw(_ other: borrowing SVGWriter) { out.append(contentsOf: other.out) }

    mutating func raw(bytes markup: [UInt8]) { out.append(contentsOf: markup) }

    /// A constant value of the diagram code: as it is when no byte of it is escaped or may start
    /// a mark (all of them so far), otherwise through the escaper.
    private mutating func literal(_ value: StaticString) {
        guard value.hasPointerRepresentation else { return HTML.appendEscaped(value, to: &out) }
        let source = value.utf8Start
        for offset in 0..<value.utf8CodeUnitCount {
            switch source[offset] {
            case 0x26, 0x3C, 0x3E, 0x22, 0x27, 0..<0x20, 0x7F...: return HTML.appendEscaped(value, to: &out)
            default: continue
            }
        }
        raw(value)
    }

    /// `text` escaped (`HTML.appendEscaped`).
    mutating func escaped(_ text: String) { HTML.appendEscaped(text, to: &out) }

    /// Drops what was written after the first `length` bytes.
    mutating func truncate(to length: Int) { out.truncate(to: length) }

    mutating func open(_ name: StaticString, _ attributes: KeyValuePairs<StaticString, SVGValue> = [:]) {
        append(UInt8(ascii: "<"))
        raw(name)
        appendAttributes(attributes)
        append(UInt8(ascii: ">"))
    }

    private mutating func appendAttributes(_ attributes: KeyValuePairs<StaticString, SVGValue>) {
        for (key, value) in attributes {
            out.append(attributeStart: key)
            switch value {
            case .literal(let text): literal(text)
            case .text(let text): HTML.appendEscaped(text, to: &out)
            case .number(let number): digits(number)
            }
            append(UInt8(ascii: "\""))
        }
    }

    /// An integer's decimal digits, as `String(number)` writes them.
    mutating func digits(_ number: Int) { out.append(digitsOf: number) }

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
            HTML.appendEscaped(text, to: &out)
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
            HTML.appendEscaped(line, to: &out)
            raw("</tspan>")
        }
        raw("</text>")
    }
}
