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

extension String {
    /// Without leading and trailing whitespace (Unicode's, newlines included).
    public func trimmingCharacters() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
