import JOSE
import FlowModel

/// A SHA-256 content fingerprint for the incremental build cache: a page is reused when its key
/// is unchanged, so a collision would silently serve a stale page; SHA-256 (OpenSSL, through
/// JOSE's `Digest`) makes that practically impossible at a cost the build does not notice.
///
/// Parts are chained: each `combine` hashes the running digest, the part's length and the part,
/// so `combine("ab"); combine("c")` and `combine("a"); combine("bc")` differ.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The running SHA-256 digest (32 bytes).
    public private(set) var digest: [UInt8]

    public init() {
        digest = Digest.sha256([UInt8]())
    }

    public init<S: Sequence>(_ parts: S) where S.Element == String {
        self.init()
        for part in parts { combine(part) }
    }

    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        digest = digest.withUnsafeBytes { previous in
            withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { length in Digest.sha256(parts: previous, length, bytes) }
        }
    }

    public mutating func combine(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { combine($0) }
    }

    public mutating func combine(_ text: String) {
        var text = text
        text.withUTF8 { combine(UnsafeRawBufferPointer($0)) }
    }

    public mutating func combine(_ hash: ContentHash) {
        combine(hash.description)
    }

    /// The first 8 bytes of the digest as a number (the search shard of a path is taken from it).
    public var low: UInt64 {
        digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The digest in lowercase hex (64 characters).
    public var description: String { Hex.string(digest) }

    /// One SHA-256 over all the parts, each preceded by its length (so no two lists of parts
    /// give the same input): for a key made of many short parts, one digest instead of one per
    /// part.
    public static func ofParts(_ parts: [String]) -> ContentHash {
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 8 })
        for part in parts {
            withUnsafeBytes(of: UInt64(part.utf8.count).littleEndian) { input.append(contentsOf: $0) }
            input.append(contentsOf: part.utf8)
        }
        var hash = ContentHash()
        hash.digest = input.withUnsafeBytes { Digest.sha256(parts: $0) }
        return hash
    }

    public static func of(_ bytes: [UInt8]) -> ContentHash {
        var hash = ContentHash()
        hash.combine(bytes)
        return hash
    }

    public static func of(_ text: String) -> ContentHash {
        var hash = ContentHash()
        hash.combine(text)
        return hash
    }
}
