import FlowModel
#if canImport(Glibc)
import Glibc
#endif

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

    /// One flow's fragment: its own bytes (a flow this build parsed), or where it lies in the
    /// previous script (`Previous`), from which it is read as the new script is written. The
    /// previous script is never held in memory: a rebuild that changed one flow of a shard read
    /// all 1.7 MB of it into fresh memory to take the other 124 fragments from, 330-430 page
    /// faults at 2 000 flows (docs/benchmarks.md, "Issue 14, twenty-eighth step").
    enum Fragment: Sendable, Equatable {
        case bytes(ArraySlice<UInt8>)
        case kept(Range<Int>)

        static let empty = Fragment.bytes([])

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .kept(let range): range.count
            }
        }

        var isEmpty: Bool { count == 0 }
    }

    /// A flow of a shard: its spec path, and its fragment (empty: a flow with no entry).
    typealias Line = (path: String, fragment: Fragment)

    static let separator: StaticString = ",\n"
    static let suffix: StaticString = "\n]);\n"

    /// Where each line's fragment lies in the script `write` makes of `lines` (an empty range,
    /// at 0, for an empty fragment), and the script's size.
    static func layout(shard: Int, _ lines: [Line]) -> (ranges: [Range<Int>], size: Int) {
        var position = prefix(shard: shard).utf8.count
        var first = true
        let ranges = lines.map { line -> Range<Int> in
            guard !line.fragment.isEmpty else { return 0..<0 }
            if !first { position += separator.utf8CodeUnitCount }
            first = false
            defer { position += line.fragment.count }
            return position..<(position + line.fragment.count)
        }
        return (ranges, position + suffix.utf8CodeUnitCount)
    }

    /// The script and its index, put together in memory (the tests' reference; a build writes
    /// the script through `write` instead).
    static func make(shard: Int, _ lines: [Line], previous: Previous? = nil) throws -> (js: [UInt8], index: [UInt8]) {
        var js: [UInt8] = []
        let index = try write(shard: shard, lines, previous: previous) { js.append(contentsOf: $0) }
        return (js, index)
    }

    /// The size of the pieces a script is written and read in: it is never put together whole
    /// (27 MB of scripts at 2 000 flows, 6 600 page faults). A multiple of 8, the fingerprint's
    /// word.
    static let chunkSize = 256 * 1024

    /// Writes a shard's script through `sink`, in pieces of `chunkSize` bytes (the last one
    /// shorter), and returns its index. `lines`: the shard's flows in index order (path,
    /// fragment; an empty fragment is a flow with no entry). Kept fragments are read from
    /// `previous`, which must be given when there are any.
    static func write(shard: Int, _ lines: [Line], previous: Previous?, to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        let (ranges, size) = layout(shard: shard, lines)
        var index = FieldWriter()
        index.reserve(lines.reduce(64) { $0 + $1.path.utf8.count + 12 } + 80)
        index.line(indexVersion)
        index.count(lines.count)
        var script = ChunkedScript()
        try Array(prefix(shard: shard).utf8).withUnsafeBytes { try script.put($0, sink) }
        for ((path, fragment), range) in zip(lines, ranges) {
            index.field(path)
            index.count(range.lowerBound)
            index.count(range.count)
            guard !fragment.isEmpty else { continue }
            // Every fragment but the first comes after a separator.
            if script.count < range.lowerBound { try script.put(separator, sink) }
            precondition(script.count == range.lowerBound, "search script layout")
            switch fragment {
            case .bytes(let bytes):
                try bytes.withUnsafeBytes { try script.put($0, sink) }
            case .kept(let kept):
                guard let previous else { throw FileSystem.Error(description: "a kept search fragment without its script") }
                try script.put(kept, of: previous, sink)
            }
        }
        try script.put(suffix, sink)
        precondition(script.count == size, "search script layout")
        let fingerprint = try script.finish(sink)
        index.count(script.count)
        index.field(fingerprint)
        return index.bytes
    }

    /// A previous script, open for reading fragments out of it: checked against its index
    /// (`open`), or known by its stamp to be the script a remembered index describes.
    final class Previous: Sendable {
        let path: String
        private let descriptor: Int32

        /// Opens `path`; nil when it cannot be opened. `stamp`: the open file's stamp.
        static func open(_ path: String) -> (previous: Previous, stamp: String)? {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                close(descriptor)
                return nil
            }
            return (Previous(path: path, descriptor: descriptor), FileSystem.stamp(info))
        }

        private init(path: String, descriptor: Int32) {
            self.path = path
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Reads `range` of the script into `target`; throws when the file ends before it.
        func read(_ range: Range<Int>, into target: UnsafeMutableRawPointer) throws {
            var done = 0
            while done < range.count {
                let n = pread(descriptor, target + done, range.count - done, off_t(range.lowerBound + done))
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    throw FileSystem.Error(description: "cannot read \(path): " + (n == 0 ? "it is shorter than its index says" : String(cString: strerror(errno))))
                }
            }
        }

        /// Reads the script from its start in pieces of at most `chunkSize` bytes, each lent
        /// to `body`, until its end; false when it cannot be read.
        func readWhole(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 8)
            defer { buffer.deallocate() }
            var offset = 0
            while true {
                let n = pread(descriptor, buffer.baseAddress!, buffer.count, off_t(offset))
                if n > 0 {
                    body(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return n == 0
                }
            }
        }
    }

    /// A script on its way to its sink: bytes gather in one `chunkSize` buffer, and each full one
    /// is fingerprinted and handed on.
    private struct ChunkedScript: ~Copyable {
        private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: SearchShardScript.chunkSize, alignment: 8)
        private var filled = 0
        private var fingerprint = Fingerprint()
        /// Bytes of the script so far.
        private(set) var count = 0

        deinit { chunk.deallocate() }

        mutating func put(_ text: StaticString, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            try put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), sink)
        }

        mutating func put(_ bytes: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            var offset = 0
            while offset < bytes.count {
                let taken = min(bytes.count - offset, chunk.count - filled)
                (chunk.baseAddress! + filled).copyMemory(from: bytes.baseAddress! + offset, byteCount: taken)
                try advance(taken, sink)
                offset += taken
            }
        }

        /// `range` of the previous script, read straight into the buffer.
        mutating func put(_ range: Range<Int>, of previous: Previous, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let taken = min(range.upperBound - offset, chunk.count - filled)
                try previous.read(offset..<(offset + taken), into: chunk.baseAddress! + filled)
                try advance(taken, sink)
                offset += taken
            }
        }

        private mutating func advance(_ taken: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            filled += taken
            count += taken
            guard filled == chunk.count else { return }
            fingerprint.add(words: UnsafeRawBufferPointer(chunk))
            try sink(UnsafeRawBufferPointer(chunk))
            filled = 0
        }

        /// Hands on the last piece; the script's fingerprint.
        mutating func finish(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> String {
            let rest = UnsafeRawBufferPointer(rebasing: chunk[..<filled])
            let words = rest.count / 8 * 8
            fingerprint.add(words: UnsafeRawBufferPointer(rebasing: rest[..<words]))
            if !rest.isEmpty { try sink(rest) }
            return fingerprint.finish(tail: UnsafeRawBufferPointer(rebasing: rest[words...]), count: count)
        }
    }

    /// The fragments by path of an open previous script, as ranges of it; nil when it cannot be
    /// read or when the index is damaged or does not describe this very script: its fingerprint
    /// is in the index (a minifier run over the site, an edit), and every byte between the
    /// fragments is checked. The script is read in pieces, never whole.
    static func fragments(shard: Int, index: [UInt8], previous: Previous) -> [String: Fragment]? {
        guard let expected = expectations(shard: shard, index: index) else { return nil }
        var check = ScriptCheck(expected)
        guard previous.readWhole({ check.take($0) }), check.passed else { return nil }
        return expected.fragments
    }

    /// `fragments(shard:index:previous:)`, of a script in memory (the tests'), taken in the
    /// pieces given.
    static func fragments(shard: Int, index: [UInt8], script pieces: [ArraySlice<UInt8>]) -> [String: Fragment]? {
        guard let expected = expectations(shard: shard, index: index) else { return nil }
        var check = ScriptCheck(expected)
        for piece in pieces { piece.withUnsafeBytes { check.take($0) } }
        return check.passed ? expected.fragments : nil
    }

    static func fragments(shard: Int, index: [UInt8], script: [UInt8]) -> [String: Fragment]? {
        fragments(shard: shard, index: index, script: [script[...]])
    }

    /// What an index says its script is: each flow's fragment, the bytes between them (at their
    /// positions, in order), its size and fingerprint.
    private struct Expectations {
        var fragments: [String: Fragment] = [:]
        var fixed: [(at: Int, bytes: [UInt8])] = []
        var size = 0
        var fingerprint = ""
    }

    private static func expectations(shard: Int, index: [UInt8]) -> Expectations? {
        var reader = FieldReader(index)
        guard reader.line() == indexVersion, let count = reader.count(), count <= reader.remaining / 12 else { return nil }
        var expected = Expectations()
        expected.fragments.reserveCapacity(count)
        let start = Array(prefix(shard: shard).utf8), between = bytes(separator)
        expected.fixed.append((0, start))
        var position = start.count
        var first = true
        for _ in 0..<count {
            guard let path = reader.field(), let offset = reader.count(), let length = reader.count() else { return nil }
            guard length > 0 else {
                expected.fragments[path] = .empty
                continue
            }
            if !first {
                expected.fixed.append((position, between))
                position += between.count
            }
            first = false
            guard offset == position else { return nil }
            expected.fragments[path] = .kept(offset..<(offset + length))
            position = offset + length
        }
        guard let total = reader.count(), let recorded = reader.field(), reader.atEnd,
              position + suffix.utf8CodeUnitCount == total else { return nil }
        expected.fixed.append((position, bytes(suffix)))
        expected.size = total
        expected.fingerprint = recorded
        return expected
    }

    private static func bytes(_ text: StaticString) -> [UInt8] {
        Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A script taken piece by piece in order and held to its index's expectations: the bytes
    /// between the fragments, the size and the fingerprint.
    private struct ScriptCheck {
        private let expected: Expectations
        private var fingerprint = Fingerprint()
        private var count = 0
        private var matching = true
        /// The next fixed bytes to check, and how many of them are checked.
        private var nextFixed = 0
        private var nextByte = 0
        /// Bytes of a piece left over after its whole words, put before the next piece's.
        private var carry: [UInt8] = []

        init(_ expected: Expectations) { self.expected = expected }

        mutating func take(_ piece: UnsafeRawBufferPointer) {
            let start = count
            count += piece.count
            guard matching, count <= expected.size else { return matching = false }
            while nextFixed < expected.fixed.count {
                let (at, bytes) = expected.fixed[nextFixed]
                let position = at + nextByte
                guard position < count else { break }
                guard position >= start, piece[position - start] == bytes[nextByte] else { return matching = false }
                nextByte += 1
                if nextByte == bytes.count {
                    nextFixed += 1
                    nextByte = 0
                }
            }
            var rest = piece[...]
            if !carry.isEmpty {
                let needed = 8 - carry.count
                carry.append(contentsOf: rest.prefix(needed))
                rest = rest.dropFirst(needed)
                guard carry.count == 8 else { return }
                carry.withUnsafeBytes { fingerprint.add(words: $0) }
                carry.removeAll(keepingCapacity: true)
            }
            let words = rest.count / 8 * 8
            fingerprint.add(words: UnsafeRawBufferPointer(rebasing: rest.prefix(words)))
            carry.append(contentsOf: rest.dropFirst(words))
        }

        /// Whether the script was all its index says.
        var passed: Bool {
            guard matching, count == expected.size, nextFixed == expected.fixed.count else { return false }
            var fingerprint = fingerprint
            return carry.withUnsafeBytes { fingerprint.finish(tail: $0, count: count) } == expected.fingerprint
        }
    }

    /// A 64-bit fingerprint of a script, taken piece by piece (multiply and shift over 8-byte
    /// words, then the tail and the size): each step is a bijection of the running value, so a
    /// change confined to one word always changes the result, and others do but for a chance of
    /// 2⁻⁶⁴. It tells an edited script from the one an index describes. Not SHA-256, as the page
    /// keys are: scripts are megabytes, and SHA-256 of them was 3.7 % of a full build's
    /// instructions.
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
}
