import Foundation

/// Small text helpers of the spec parser.
extension String {
    package func trimmingBackticks() -> String {
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

    /// The parts between occurrences of `separator` (never empty). Split on UTF-8 bytes: a
    /// separator's first byte is never a continuation byte, so matches fall on scalar
    /// boundaries, as they did when this compared scalars.
    package func components(separatedByString separator: String) -> [String] {
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
