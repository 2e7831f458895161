import Foundation

/// Small text helpers of the spec parser.
extension String {
    package func trimmingBackticks() -> String {
        // Most text neither starts nor ends with a backtick byte: nothing to trim.
        guard utf8.first == UInt8(ascii: "`") || utf8.last == UInt8(ascii: "`") else { return self }
        var slice = Substring(self)
        while slice.first == "`" { slice.removeFirst() }
        while slice.last == "`" { slice.removeLast() }
        return String(slice)
    }

    package func trimmingTrailingColon() -> String {
        var slice = Substring(self)
        while let last = slice.last, last == ":" || last == " " { slice.removeLast() }
        return String(slice)
    }

    func trimmingClosingHashes() -> String {
        var slice = Substring(self)
        while slice.last == "#" { slice.removeLast() }
        return String(slice).trimmingCharacters()
    }
}

extension String {
    /// A String of `scalars`, encoded into one UTF-8 buffer (appending scalar by scalar to a
    /// `String.UnicodeScalarView` cost about 300 instructions each; the parser slices every
    /// heading and actors line this way).
    init(scalars: some Collection<Unicode.Scalar>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count + 8)
        for scalar in scalars {
            if scalar.value < 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
