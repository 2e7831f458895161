import FlowModel
import Foundation

// Site build, stage 4: the index order, the index and search pages, the search index shards.

extension SiteBuilder {
    /// The rendered index and search pages.
    struct IndexPages: Sendable {
        var index: PageRenderer.IndexPage
        var search: String
        var notFound: String
        /// `assets/search/shards.js`: the shards that hold entries, for the header search.
        var shardList: String
    }

    /// What became of one search shard.
    enum MadeShard: Sendable {
        /// The previous build's script and index are kept.
        case kept
        /// To be written (`writeSearchShards`): the flows' fragments in index order, and the
        /// previous script the kept ones are read from.
        case written(lines: [SearchShardScript.Line], previous: SearchShardScript.Previous?)
        /// The previous script, which unchanged flows' fragments come from, is missing or not
        /// the one its index describes.
        case unrecoverable
    }

    /// The search shards to write (script and its index) and the ones to link unchanged.
    struct SearchShardFiles: Sendable {
        var written: [Int: (lines: [SearchShardScript.Line], previous: SearchShardScript.Previous?)]
        var reused: [Int]
    }

    /// Index order: navigation first, then by translation group (its original's title, then its
    /// id), original before translations, then language and id. Titles and ids compare in byte
    /// order (not Unicode canonical order, which is slow for non-ASCII titles): deterministic,
    /// and the same as canonical order for ASCII. Each flow's key is made once, as bytes.
    func indexOrder(_ infos: [FlowInfo], config: SiteConfig) -> [Int] {
        let navigationRank = Dictionary(config.navigation.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // A translation sorts under its original's title. Only originals need looking up (ids
        // are unique here: a shared one is an error that stops the build before this stage).
        var translated = Set<String>()
        for index in infos.indices where !infos[index].record.translationOf.isEmpty { translated.insert(infos[index].record.translationOf) }
        var titleByID: [String: String] = [:]
        if !translated.isEmpty {
            for index in infos.indices where translated.contains(infos[index].record.id) { titleByID[infos[index].record.id] = infos[index].record.titleKey }
        }
        let languageRanks = Dictionary(config.languages.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // (A key: three numbers of 8 bytes, a title, a group and an id: about 140 bytes.)
        var keys = ByteKeys(capacity: infos.count, bytesPerKey: 160)
        // (Most sites name no navigation: no lookup then.)
        let ranked = !navigationRank.isEmpty
        for index in infos.indices {
            let record = infos[index].record
            let group = record.groupKey
            keys.begin()
            keys.append(ranked ? navigationRank[record.id] ?? navigationRank[group] ?? Int.max : Int.max)
            keys.append(record.translationOf.isEmpty ? record.titleKey : titleByID[group] ?? record.titleKey)
            keys.append(group)
            keys.append(group == record.id ? 0 : 1)
            keys.append(languageRanks[record.lang] ?? config.languages.count)
            keys.append(record.id)
        }
        return keys.sortedPositions()
    }

    /// The index (cards in order, tag counts) and the search page.
    func indexPages(_ infos: [FlowInfo], order: [Int], groups: [String: [TranslationLink]], renderer: PageRenderer, globalKey: String) -> IndexPages {
        var tagCounts: [String: Int] = [:]
        for index in infos.indices {
            let tags = infos[index].record.tags
            for (position, tag) in tags.enumerated() where !tags[..<position].contains(tag) { tagCounts[tag, default: 0] += 1 }
        }
        let tags = tagCounts.keys.sorted().map { PageRenderer.TagCount(name: $0, count: tagCounts[$0]!) }
        // The cards are handed to the page as they are (each an array of its own), not joined.
        var cards: [[UInt8]] = []
        cards.reserveCapacity(order.count)
        // One card per translation group (its first member in index order: the original), with
        // links to the group's other languages. Most groups have one member: only the others
        // are collected.
        var members: [String: [Int]] = [:]
        if !groups.isEmpty {
            for index in order where (groups[infos[index].groupKey]?.count ?? 1) > 1 { members[infos[index].groupKey, default: []].append(index) }
        }
        // (Made with the same theme and configuration: the global key covers both.)
        let remembered = options.memory?.cards.value.flatMap { $0.globalKey == globalKey ? $0.cards : nil } ?? [:]
        var used: [String: SiteBuildMemory.Card] = [:]
        let languagesContext = members.isEmpty ? nil : renderer.cardLanguagesContext()
        for index in order {
            let key = infos[index].groupKey
            guard !members.isEmpty, let group = members[key] else {
                cards.append(infos[index].card)
                continue
            }
            guard group.first == index else { continue }
            let others = group.dropFirst().map { TranslationLink(id: infos[$0].id, lang: infos[$0].lang, title: infos[$0].title) }
            // A card with languages is a template's output: the last build's is reused when its
            // inputs are the same.
            let html: [UInt8]
            if let known = remembered[key], known.card == infos[index].card, known.others == others {
                html = known.html
            } else {
                html = renderer.cardWithLanguages(infos[index].card, others: others, base: languagesContext)
            }
            if options.memory != nil { used[key] = SiteBuildMemory.Card(card: infos[index].card, others: others, html: html) }
            cards.append(html)
        }
        options.memory?.cards.withLock { $0 = (globalKey, used) }
        var hasEntries = [Bool](repeating: false, count: Self.searchShards)
        for index in infos.indices { hasEntries[infos[index].shard] = true }
        let shards = hasEntries.indices.filter { hasEntries[$0] }
        return IndexPages(
            index: renderer.indexPage(cards: cards, tags: tags, flowCount: infos.count),
            search: renderer.searchPage(shards: shards),
            notFound: renderer.notFoundPage(),
            shardList: "window.flowspecSearchShards = " + JSONText.array(shards.map { JSONText.string(Self.searchShardPath($0)) }) + ";\n"
        )
    }

    /// Search index in shards (a flow's shard comes from its path), so a rebuild rewrites only
    /// the shards whose flows changed, taking the unchanged flows' fragments from the script. The
    /// shards are made on all cores (a full build of 2 000 flows writes 27 MB of them).
    /// Throws `SiteBuildError.previousSearchUnusable` when a shard to rewrite cannot take its
    /// unchanged flows' fragments from the previous script.
    func searchShardFiles(_ infos: [FlowInfo], order: [Int], previous: PreviousBuild, output: String) throws -> SearchShardFiles {
        var shardMembers = [[Int]](repeating: [], count: Self.searchShards)
        for index in order { shardMembers[infos[index].shard].append(index) }
        var oldShardMembers = [Int](repeating: 0, count: Self.searchShards)
        for entry in previous.cache?.entries ?? [] { oldShardMembers[previous.shard(of: entry.path)] += 1 }
        let made = OrderedSlots<MadeShard>(count: Self.searchShards)
        let members = shardMembers, oldMembers = oldShardMembers
        DispatchQueue.concurrentPerform(iterations: Self.searchShards) { shard in
            // The same members as before (paths are unique: as many, each one there before),
            // none of them parsed by this build: the shard is kept.
            let unchanged = previous.cache != nil && members[shard].count == oldMembers[shard]
                && members[shard].allSatisfy { infos[$0].flow == nil && infos[$0].previous != nil }
                && FileSystem.exists(output + "/" + Self.searchShardPath(shard))
            made.set(shard, unchanged ? .kept : searchShard(shard, members: members[shard], infos, output: output))
        }
        var files = SearchShardFiles(written: [:], reused: [])
        for (shard, outcome) in made.values.enumerated() {
            switch outcome {
            case .kept: files.reused.append(shard)
            case .written(let lines, let previous): files.written[shard] = (lines, previous)
            case .unrecoverable: throw SiteBuildError.previousSearchUnusable
            }
        }
        return files
    }

    /// One shard's fragments, to be written as its script and index (`SearchShardScript`);
    /// `.unrecoverable` when unchanged flows' fragments cannot be taken from the previous script.
    private func searchShard(_ shard: Int, members: [Int], _ infos: [FlowInfo], output: String) -> MadeShard {
        var fragments: [String: SearchShardScript.Fragment] = [:]
        var previous: SearchShardScript.Previous?
        if members.contains(where: { infos[$0].flow == nil }) {
            guard let kept = searchFragments(shard: shard, output: output) else { return .unrecoverable }
            (previous, fragments) = kept
        }
        var lines: [SearchShardScript.Line] = []
        lines.reserveCapacity(members.count)
        for index in members {
            let fragment = infos[index].flow != nil ? .bytes(infos[index].search[...]) : (fragments[infos[index].path] ?? .empty)
            lines.append((infos[index].path, fragment))
        }
        return .written(lines: lines, previous: previous)
    }

    /// Writes each shard to write as its script, then its index, on all cores; a script is
    /// written in pieces, never put together whole (27 MB at 2 000 flows). `replacing`: into
    /// the served site itself, each file replaced atomically.
    func writeSearchShards(_ search: SearchShardFiles, root: String, replacing: Bool) throws {
        let shards = search.written.keys.sorted()
        let failures = OrderedSlots<String?>(count: shards.count)
        DispatchQueue.concurrentPerform(iterations: shards.count) { position in
            let shard = shards[position]
            let (lines, previous) = search.written[shard]!
            let script = root + "/" + Self.searchShardPath(shard), indexPath = root + "/" + Self.searchIndexPath(shard)
            do {
                let produce = { (sink: (UnsafeRawBufferPointer) throws -> Void) in
                    try SearchShardScript.write(shard: shard, lines, previous: previous, to: sink)
                }
                let index = try replacing ? FileSystem.replace(at: script, produce) : FileSystem.write(to: script, produce)
                try replacing ? FileSystem.replace(index, at: indexPath) : FileSystem.write(index, to: indexPath)
                failures.set(position, nil)
            } catch {
                failures.set(position, "\(error)")
            }
        }
        if let failure = failures.values.lazy.compactMap({ $0 }).first { throw SiteBuildError(failure) }
    }

    /// A search shard's previous script, open, and its flows' fragments by spec path as ranges
    /// of it: as the memory holds them while the script has the same stamp, else checked
    /// against the shard's index.
    func searchFragments(shard: Int, output: String) -> (SearchShardScript.Previous, [String: SearchShardScript.Fragment])? {
        let script = output + "/" + Self.searchShardPath(shard)
        guard let (previous, stamp) = SearchShardScript.Previous.open(script) else { return nil }
        if let memory = options.memory, let known = SiteBuildMemory.recall(memory.fragments, key: script, stamp: stamp) { return (previous, known) }
        guard let index = try? FileSystem.read(output + "/" + Self.searchIndexPath(shard)),
              let fragments = SearchShardScript.fragments(shard: shard, index: index, previous: previous) else { return nil }
        options.memory?.fragments.withLock { $0[script] = .init(stamp: stamp, value: fragments) }
        return (previous, fragments)
    }
}
