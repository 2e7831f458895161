import FlowModel

/// A search shard as the site holds it: the script `assets/search/N.js`, its flows' fragments
/// (the arrays the search page reads) in index order, and beside the build cache its index
/// `.flowspec/search-N`: each flow's path and where its fragment lies in the script. A rebuild
/// that changes one flow of a shard takes the other flows' fragments from the script itself.
///
/// The cache once kept a second copy of every fragment: at 2 000 flows, 27 MB more to put
/// together and write in a full build, and a 1.7 MB copy more to write for each shard a rebuild
/// changed (docs/benchmarks.md, "Issue 14, twentieth step").
enum SearchShardScript {
    static let indexVersion = "flowspec-search-index 1"

    static func prefix(shard: Int) -> String {
        "/* flowspec search index, shard \(shard): [href, title, context, text, lang] per entry. */\n"
            + "window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([\n"
    }

    static let separator: StaticString = ",\n"
    static let suffix: StaticString = "\n]);\n"

    /// The script and its index for a shard's flows in index order (path, fragment; an empty
    /// fragment is a flow with no entry).
    static func make(shard: Int, _ lines: [(path: String, fragment: [UInt8])]) -> (js: [UInt8], index: [UInt8]) {
        var js: [UInt8] = []
        js.reserveCapacity(lines.reduce(256) { $0 + $1.fragment.count + 2 })
        js.append(contentsOf: prefix(shard: shard).utf8)
        var index = FieldWriter()
        index.reserve(lines.reduce(64) { $0 + $1.path.utf8.count + 12 })
        index.line(indexVersion)
        index.count(lines.count)
        var first = true
        for (path, fragment) in lines {
            index.field(path)
            guard !fragment.isEmpty else {
                index.count(0)
                index.count(0)
                continue
            }
            if !first { append(separator, to: &js) }
            first = false
            index.count(js.count)
            index.count(fragment.count)
            js.append(contentsOf: fragment)
        }
        append(suffix, to: &js)
        index.count(js.count)
        index.field(digest(js))
        return (js, index.bytes)
    }

    /// The fragments by path from a shard's index and script; nil when the index is damaged or
    /// does not describe this very script: its SHA-256 is in the index (a minifier run over the
    /// site, an edit), and every byte between the fragments is checked.
    static func fragments(shard: Int, index: [UInt8], script: [UInt8]) -> [String: [UInt8]]? {
        var reader = FieldReader(index)
        guard reader.line() == indexVersion, let count = reader.count(), count <= reader.remaining / 12 else { return nil }
        var result: [String: [UInt8]] = [:]
        result.reserveCapacity(count)
        let start = Array(prefix(shard: shard).utf8)
        guard script.starts(with: start) else { return nil }
        var position = start.count
        var first = true
        for _ in 0..<count {
            guard let path = reader.field(), let offset = reader.count(), let length = reader.count() else { return nil }
            guard length > 0 else {
                result[path] = []
                continue
            }
            if !first {
                guard matches(separator, in: script, at: position) else { return nil }
                position += separator.utf8CodeUnitCount
            }
            first = false
            guard offset == position, length <= script.count - offset else { return nil }
            result[path] = Array(script[offset..<(offset + length)])
            position = offset + length
        }
        guard let total = reader.count(), let recorded = reader.field(), reader.atEnd, total == script.count,
              position + suffix.utf8CodeUnitCount == total, matches(suffix, in: script, at: position),
              recorded == digest(script) else { return nil }
        return result
    }

    /// A 64-bit fingerprint of a script (multiply and shift over 8-byte words, then its size):
    /// each step is a bijection of the running value, so a change confined to one word always
    /// changes the result, and others do but for a chance of 2⁻⁶⁴. It tells an edited script from
    /// the one an index describes. Not SHA-256, as the page keys are: scripts are megabytes, and
    /// SHA-256 of them was 3.7 % of a full build's instructions.
    static func digest(_ script: [UInt8]) -> String {
        let value = script.withUnsafeBytes { raw -> UInt64 in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            func mix(_ word: UInt64) {
                hash = (hash ^ word) &* 0x0000_0100_0000_01b3
                hash ^= hash >> 32
            }
            let words = raw.count / 8
            for index in 0..<words { mix(raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            var tail: UInt64 = 0
            for offset in (words * 8)..<raw.count { tail |= UInt64(raw[offset]) << UInt64(8 * (offset - words * 8)) }
            mix(tail)
            mix(UInt64(raw.count))
            return hash
        }
        return String(value, radix: 16)
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func matches(_ text: StaticString, in bytes: [UInt8], at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position >= 0, bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
        return true
    }
}
