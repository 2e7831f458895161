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

    /// One flow's fragment: its own bytes (a flow this build parsed), or a slice of the previous
    /// script it was taken from. Slices, not copies: a rebuild that changed one flow of a shard
    /// copied the other 124 fragments out of the script, 1.6 MB of fresh memory and 250 page
    /// faults at 2 000 flows. (`serve`'s memory keeps a read script alive while any of its
    /// fragments is remembered.)
    typealias Fragment = ArraySlice<UInt8>
    /// A flow of a shard: its spec path, and its fragment (empty: a flow with no entry).
    typealias Line = (path: String, fragment: Fragment)

    static let separator: StaticString = ",\n"
    static let suffix: StaticString = "\n]);\n"

    /// The script and its index, put together in memory (the tests' reference; a build writes
    /// the script through `write` instead).
    static func make(shard: Int, _ lines: [Line]) throws -> (js: [UInt8], index: [UInt8]) {
        var js: [UInt8] = []
        let index = try write(shard: shard, lines) { js.append(contentsOf: $0) }
        return (js, index)
    }

    /// The size of the pieces a script is written in: it is never put together whole (27 MB of
    /// scripts at 2 000 flows, 6 600 page faults). A multiple of 8, the fingerprint's word.
    static let chunkSize = 256 * 1024

    /// Writes a shard's script through `sink`, in pieces of `chunkSize` bytes (the last one
    /// shorter), and returns its index. `lines`: the shard's flows in index order (path,
    /// fragment; an empty fragment is a flow with no entry).
    static func write(shard: Int, _ lines: [Line], to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        var index = FieldWriter()
        index.reserve(lines.reduce(64) { $0 + $1.path.utf8.count + 12 } + 80)
        index.line(indexVersion)
        index.count(lines.count)
        var script = ChunkedScript()
        try script.put(Array(prefix(shard: shard).utf8)[...], sink)
        var first = true
        for (path, fragment) in lines {
            index.field(path)
            guard !fragment.isEmpty else {
                index.count(0)
                index.count(0)
                continue
            }
            if !first { try script.put(separator, sink) }
            first = false
            index.count(script.count)
            index.count(fragment.count)
            try script.put(fragment, sink)
        }
        try script.put(suffix, sink)
        let fingerprint = try script.finish(sink)
        index.count(script.count)
        index.field(fingerprint)
        return index.bytes
    }

    /// A script on its way to its sink: bytes gather in one `chunkSize` buffer, and each full one
    /// is fingerprinted and handed on.
    private struct ChunkedScript {
        private var chunk: [UInt8] = []
        private var fingerprint = Fingerprint()
        /// Bytes of the script so far.
        private(set) var count = 0

        init() { chunk.reserveCapacity(SearchShardScript.chunkSize) }

        mutating func put(_ text: StaticString, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            try put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), sink)
        }

        mutating func put(_ bytes: Fragment, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            try bytes.withUnsafeBytes { try put($0, sink) }
        }

        mutating func put(_ bytes: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            var rest = bytes[...]
            while !rest.isEmpty {
                let taken = rest.prefix(SearchShardScript.chunkSize - chunk.count)
                chunk.append(contentsOf: taken)
                count += taken.count
                rest = rest.dropFirst(taken.count)
                if chunk.count == SearchShardScript.chunkSize {
                    try chunk.withUnsafeBytes { whole in
                        fingerprint.add(words: whole)
                        try sink(whole)
                    }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        }

        /// Hands on the last piece; the script's fingerprint.
        mutating func finish(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> String {
            let total = count
            return try chunk.withUnsafeBytes { rest in
                let words = rest.count / 8 * 8
                fingerprint.add(words: UnsafeRawBufferPointer(rebasing: rest[..<words]))
                if !rest.isEmpty { try sink(rest) }
                return fingerprint.finish(tail: UnsafeRawBufferPointer(rebasing: rest[words...]), count: total)
            }
        }
    }

    /// The fragments by path from a shard's index and script; nil when the index is damaged or
    /// does not describe this very script: its fingerprint is in the index (a minifier run over
    /// the site, an edit), and every byte between the fragments is checked.
    static func fragments(shard: Int, index: [UInt8], script: [UInt8]) -> [String: Fragment]? {
        var reader = FieldReader(index)
        guard reader.line() == indexVersion, let count = reader.count(), count <= reader.remaining / 12 else { return nil }
        var result: [String: Fragment] = [:]
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
            result[path] = script[offset..<(offset + length)]
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
        script.withUnsafeBytes { raw in
            var fingerprint = Fingerprint()
            let words = raw.count / 8 * 8
            fingerprint.add(words: UnsafeRawBufferPointer(rebasing: raw[..<words]))
            return fingerprint.finish(tail: UnsafeRawBufferPointer(rebasing: raw[words...]), count: raw.count)
        }
    }

    /// `digest` taken piece by piece: whole words, then the tail and the size.
    struct Fingerprint {
        private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

        private mutating func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x0000_0100_0000_01b3
            hash ^= hash >> 32
        }

        /// `bytes.count` is a multiple of 8.
        mutating func add(words bytes: UnsafeRawBufferPointer) {
            for index in 0..<(bytes.count / 8) { mix(bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
        }

        /// The fewer than 8 bytes left, and the script's size.
        mutating func finish(tail: UnsafeRawBufferPointer, count: Int) -> String {
            var word: UInt64 = 0
            for (offset, byte) in tail.enumerated() { word |= UInt64(byte) << UInt64(8 * offset) }
            mix(word)
            mix(UInt64(count))
            return String(hash, radix: 16)
        }
    }

    private static func matches(_ text: StaticString, in bytes: [UInt8], at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position >= 0, bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
        return true
    }
}
