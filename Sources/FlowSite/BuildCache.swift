import Dispatch
import FlowModel

/// What a build remembers about each flow, stored inside the output (`.flowspec/cache`) so the
/// cache is swapped in atomically with the pages it describes. Binary: a version line, then
/// length-prefixed fields (no escaping, no scanning), because it is read and written on every
/// rebuild and must cost a few milliseconds for 10 000 flows. A damaged or older cache is
/// ignored (the build is then a full one).
/// What the site knows about one flow's page between builds: the same fields in memory
/// (`SiteBuilder.FlowInfo`) and in the cache (`BuildCache.Entry`), declared once.
/// What the cache keeps of one flow. Eleven strings and a list: held in one shared box, so the
/// build's many passes over 2 000 records copy a reference, not twelve (perf of `serve`'s
/// rebuilds at 2 000 flows: `swift_retain` of these copies was a fifth of the CPU). Copy on
/// write keeps value semantics.
struct FlowRecord: Sendable, Equatable {
    struct Fields: Sendable, Equatable {
        var path: String
        var contentHash: String
        var id: String
        var lang: String
        var translationOf: String
        var title: String
        /// Lowercased title, the index's sort key (kept in the cache: lowercasing is not cheap).
        var titleKey: String
        var tags: [String]
        /// The index card's HTML, as bytes: the index copies 2 000 of them, and a rebuild reads
        /// them from the cache without checking their UTF-8 again (they were two thirds of it).
        var card: [UInt8]
        /// The OpenAPI description the flow names (`openapi:`, resolved), "" for none: its
        /// content is part of the page key, so a changed description re-renders the page.
        var openapi: String
        var pageKey: String
    }

    private final class Box: @unchecked Sendable {
        // Written only through `FlowRecord.update`, which copies the box first unless the
        // record holds the only reference.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    init(path: String, contentHash: String, id: String, lang: String, translationOf: String, title: String, titleKey: String,
         tags: [String], card: [UInt8], openapi: String, pageKey: String) {
        box = Box(Fields(path: path, contentHash: contentHash, id: id, lang: lang, translationOf: translationOf, title: title,
                         titleKey: titleKey, tags: tags, card: card, openapi: openapi, pageKey: pageKey))
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    var path: String { get { box.fields.path } set { update { $0.path = newValue } } }
    var contentHash: String { get { box.fields.contentHash } set { update { $0.contentHash = newValue } } }
    var id: String { get { box.fields.id } set { update { $0.id = newValue } } }
    var lang: String { get { box.fields.lang } set { update { $0.lang = newValue } } }
    var translationOf: String { get { box.fields.translationOf } set { update { $0.translationOf = newValue } } }
    var title: String { get { box.fields.title } set { update { $0.title = newValue } } }
    var titleKey: String { get { box.fields.titleKey } set { update { $0.titleKey = newValue } } }
    var tags: [String] { get { box.fields.tags } set { update { $0.tags = newValue } } }
    var card: [UInt8] { get { box.fields.card } set { update { $0.card = newValue } } }
    var openapi: String { get { box.fields.openapi } set { update { $0.openapi = newValue } } }
    var pageKey: String { get { box.fields.pageKey } set { update { $0.pageKey = newValue } } }

    var groupKey: String { translationOf.isEmpty ? id : translationOf }

    static func == (a: FlowRecord, b: FlowRecord) -> Bool { a.box === b.box || a.box.fields == b.box.fields }
}

struct BuildCache: Sendable {
    static let formatVersion = "flowspec-site-cache 11"
    /// The header: format, global key, number of shards, the rest of the key context. Its
    /// presence marks a flowspec site.
    static let relativePath = ".flowspec/cache"
    /// Entries live in shards by path (the search index's shards), so a rebuild rewrites only
    /// the shards whose entries changed and hard-links the others.
    static func shardPath(_ shard: Int) -> String { ".flowspec/cache-\(shard)" }
    /// The OpenAPI descriptions the flows name, decoded (`APIDescriptionLoader.archive`).
    static let descriptionsPath = ".flowspec/openapi"

    /// A flow's record as the cache keeps it: the record, the spec's size and modification time
    /// when it was hashed (machine-specific), and the file's own diagnostics (parse and per-flow
    /// rules), one JSON object per line.
    @dynamicMemberLookup
    struct Entry: Sendable, Equatable {
        var record: FlowRecord
        var stat: String
        var diagnostics: String

        subscript<Value>(dynamicMember field: KeyPath<FlowRecord, Value>) -> Value { record[keyPath: field] }
    }

    var globalKey: String
    var entries: [Entry]
    /// Each entry's search and cache shard, by entry position: found once per build (each
    /// lookup by path was a string hash, several per flow at every rebuild).
    var entryShards: [Int]
    /// What the entries' page keys were made with besides the global key (the pages' extra
    /// head markup, the descriptions' content hashes): when it is unchanged, an unchanged
    /// flow's key is its entry's, not hashed again (2 000 keys took 9 ms of a one-flow rebuild).
    var keyContext: PageKeyContext

    /// Reads the header and every shard under a site folder; nil when any part is missing,
    /// damaged or of another format (the build is then a full one).
    static func load(from site: String, shards: Int) -> BuildCache? {
        guard let header = try? FileSystem.read(site + "/" + relativePath) else { return nil }
        var reader = FieldReader(header)
        guard reader.line() == formatVersion, let globalKey = reader.field(), reader.count() == shards, let headExtra = reader.field(),
              let descriptionCount = reader.count(), descriptionCount <= reader.remaining / 8 else { return nil }
        var descriptions: [String: String] = [:]
        for _ in 0..<descriptionCount {
            guard let path = reader.field(), let hash = reader.field() else { return nil }
            descriptions[path] = hash
        }
        guard reader.atEnd else { return nil }
        // The shards are read and decoded on every core (a sixth of a one-flow rebuild of 2 000
        // flows was decoding them on one).
        let parts = OrderedSlots<[Entry]?>(count: shards)
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            parts.set(shard, (try? FileSystem.read(site + "/" + shardPath(shard))).flatMap(parseShard))
        }
        var entries: [Entry] = []
        // An entry's shard is the file it is in (`write` puts it there): not hashed again (2 000
        // SHA-256s were a fifteenth of a one-flow rebuild's instructions).
        var entryShards: [Int] = []
        for (shard, part) in parts.values.enumerated() {
            guard let part else { return nil }
            entries += part
            entryShards += repeatElement(shard, count: part.count)
        }
        return BuildCache(globalKey: globalKey, entries: entries, entryShards: entryShards,
                          keyContext: PageKeyContext(globalKey: globalKey, headExtra: headExtra, descriptions: descriptions))
    }

    /// Writes the header and the shards into a new site folder. A shard whose entries equal the
    /// previous build's is hard-linked from `previousSite` instead of written. When `site` is
    /// `previousSite` (an update in place), unchanged files are left alone and the others are
    /// replaced atomically.
    func write(to site: String, shards: Int, previous: BuildCache?, previousSite: String) throws {
        let inPlace = site == previousSite
        var header = FieldWriter()
        header.line(Self.formatVersion)
        header.field(globalKey)
        header.count(shards)
        header.field(keyContext.headExtra)
        header.count(keyContext.descriptions.count)
        for (path, hash) in keyContext.descriptions.sorted(by: { $0.key < $1.key }) {
            header.field(path)
            header.field(hash)
        }
        if inPlace {
            if previous?.globalKey != globalKey || previous?.keyContext != keyContext {
                try FileSystem.replace(header.bytes, at: site + "/" + Self.relativePath)
            }
        } else {
            try FileSystem.write(header.bytes, to: site + "/" + Self.relativePath)
        }
        // Shards as positions into the entries (grouping copies of the entries cost more than
        // comparing them).
        var current = [[Int]](repeating: [], count: shards)
        for index in entries.indices { current[entryShards[index]].append(index) }
        let oldEntries = previous?.entries ?? []
        let oldShards = previous?.entryShards ?? []
        var old = [[Int]](repeating: [], count: shards)
        for index in oldEntries.indices { old[oldShards[index]].append(index) }
        for shard in 0..<shards {
            let path = "/" + Self.shardPath(shard)
            let unchanged = previous != nil && current[shard].count == old[shard].count
                && zip(current[shard], old[shard]).allSatisfy { entries[$0] == oldEntries[$1] }
            if inPlace {
                if unchanged, FileSystem.exists(site + path) { continue }
                try FileSystem.replace(Self.serializeShard(current[shard].map { entries[$0] }), at: site + path)
                continue
            }
            if unchanged, (try? FileSystem.linkOrCopy(previousSite + path, to: site + path)) != nil { continue }
            try FileSystem.write(Self.serializeShard(current[shard].map { entries[$0] }), to: site + path)
        }
    }

    /// Makes the next build of a site a full one (its global key matches nothing) while the
    /// folder stays marked as a flowspec site: after an update in place failed half-way.
    static func invalidate(site: String) {
        var header = FieldWriter()
        header.line(formatVersion)
        header.field("invalidated")
        header.count(SiteBuilder.searchShards)
        header.field("")
        header.count(0)
        try? FileSystem.replace(header.bytes, at: site + "/" + relativePath)
    }

    static func serializeShard(_ entries: [Entry]) -> [UInt8] {
        var writer = FieldWriter()
        writer.reserve(entries.reduce(0) { (sum: Int, entry: Entry) in sum + entry.card.count + 320 } + 64)
        writer.line(Self.formatVersion)
        writer.count(entries.count)
        for e in entries {
            for field in [e.path, e.stat, e.contentHash, e.id, e.lang, e.translationOf, e.title, e.titleKey, e.pageKey, e.tags.joined(separator: "\u{1F}")] {
                writer.field(field)
            }
            writer.field(bytes: e.card)
            writer.field(e.diagnostics)
            writer.field(e.openapi)
        }
        return writer.bytes
    }

    static func parseShard(_ bytes: [UInt8]) -> [Entry]? {
        var reader = FieldReader(bytes)
        guard reader.line() == formatVersion, let count = reader.count(),
              count <= reader.remaining / 52 else { return nil }  // 13 length prefixes per entry
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.field(), let stat = reader.field(), let contentHash = reader.field(), let id = reader.field(),
                  let lang = reader.field(), let translationOf = reader.field(), let title = reader.field(), let titleKey = reader.field(),
                  let pageKey = reader.field(), let tags = reader.field(), let card = reader.bytesField(), let diagnostics = reader.field(),
                  let openapi = reader.field()
            else { return nil }
            let record = FlowRecord(
                path: path, contentHash: contentHash, id: id, lang: lang, translationOf: translationOf, title: title, titleKey: titleKey,
                tags: Self.splitTags(tags),
                card: card, openapi: openapi, pageKey: pageKey)
            entries.append(Entry(record: record, stat: stat, diagnostics: diagnostics))
        }
        guard reader.atEnd else { return nil }
        return entries
    }

    /// Tags as `serializeShard` joined them (unit separators), split with a byte loop: the
    /// generic `split` over a UTF-8 view took 4 000 instructions per entry.
    static func splitTags(_ joined: String) -> [String] {
        guard !joined.isEmpty else { return [] }
        var joined = joined
        return joined.withUTF8 { bytes in
            var tags: [String] = []
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x1F {
                tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            return tags
        }
    }
}
