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

    package func components(separatedByString separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        let separatorScalars = Array(separator.unicodeScalars)
        var current = ""
        var scalars = Array(rest.unicodeScalars)[...]
        while !scalars.isEmpty {
            if scalars.starts(with: separatorScalars) {
                parts.append(current)
                current = ""
                scalars = scalars.dropFirst(separatorScalars.count)
            } else {
                current.unicodeScalars.append(scalars.removeFirst())
            }
        }
        rest = Substring(current)
        parts.append(String(rest))
        return parts
    }
}
