import Dispatch
import FlowModel
import FlowParser
import Foundation

// Site build, stage 3: describe every flow (parsed ones fresh, the others from the cache), key
// each page, decide which pages to render and which to reuse, render them on all cores.

extension SiteBuilder {
    /// Everything the index, search and switchers need about one flow: its record (what the
    /// cache keeps), and what a build makes fresh.
    @dynamicMemberLookup
    struct FlowInfo: Sendable {
        var record: FlowRecord
        /// Its search and cache shard (from its path).
        var shard: Int
        var search: [UInt8] = []
        var diagnostics: [Diagnostic]
        /// The parsed flow; nil for a flow described from the cache.
        var flow: Flow?
        /// The previous build's entry for its path (`Source.previous`).
        var previous: BuildCache.Entry?
        /// Its source's size and modification time (`Source.stat`), for the cache.
        var stat: String

        subscript<Value>(dynamicMember field: WritableKeyPath<FlowRecord, Value>) -> Value {
            get { record[keyPath: field] }
            set { record[keyPath: field] = newValue }
        }
        var groupKey: String { record.groupKey }
    }

    /// Pages to render (parsed flows whose key changed or whose old page is missing) and pages
    /// to hard-link from the previous build, as indices into the flow infos.
    struct PagePlan: Sendable {
        var render: [Int]
        var reuse: [Int]
        /// Each flow's page file name, by flow info index (made once: the report and the
        /// removal of stale pages need them too).
        var names: [String] = []
        /// The names in the previous site's `flows/` folder that no flow of this build has.
        var stale: [String] = []

        /// Whether the build renders at most a fifth of its pages: the tree it replaces then
        /// shares all the others with the new one, and is kept for the next build
        /// (`PreviousTree`) at the cost of those few pages' space.
        var fewChanged: Bool { render.count * 4 <= reuse.count }
    }

    /// One info per source: parsed flows fresh, unchanged ones from the cache (their diagnostics
    /// replayed into `diagnostics`).
    func describeFlows(
        _ sources: [Source], _ specs: ParsedSpecs, _ plan: ParsePlan, _ previous: PreviousBuild, diagnostics: inout [Diagnostic]
    ) -> [FlowInfo] {
        let parsedByPath = Dictionary(specs.flows.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        @Sendable func describe(_ index: Int, _ flow: Flow) -> FlowInfo {
            let path = sources[index].path
            let plainTitle = MarkdownRenderer.plainText(source: flow.title).trimmingCharacters()
            let record = FlowRecord(
                path: path, contentHash: sources[index].hash, id: flow.id, lang: flow.lang,
                translationOf: flow.translationOf ?? "", title: plainTitle, titleKey: plainTitle.lowercasedOnBytes(),
                tags: flow.tags, card: [], openapi: APIDescriptionCache.file(for: flow) ?? "", pageKey: "")
            return FlowInfo(
                record: record, shard: previous.shard(of: path), diagnostics: specs.diagnosticsByFile[path] ?? [], flow: flow,
                previous: sources[index].previous, stat: sources[index].stat)
        }
        // Many parsed flows (a full build) are described on all cores first: 25 ms on one at
        // 2 000 flows.
        var described: [FlowInfo?] = []
        if parsedByPath.count >= 64 {
            let slots = OrderedSlots<FlowInfo?>(count: sources.count)
            DispatchQueue.concurrentPerform(iterations: sources.count) { index in
                slots.set(index, parsedByPath[sources[index].path].map { describe(index, $0) })
            }
            described = slots.values
        }
        var infos: [FlowInfo] = []
        infos.reserveCapacity(sources.count)
        let decoder = JSONDecoder()
        // Sources and infos are read in place, not copied per element: at 2 000 flows each
        // copy's retains were cache misses on objects spread over the heap (perf: swift_retain
        // was a sixth of serve's warm rebuild).
        for index in sources.indices {
            let path = sources[index].path
            if let flow = parsedByPath[path] {
                infos.append(described.isEmpty ? describe(index, flow) : described[index].take()!)
            } else if let entry = sources[index].previous, !plan.toParse.contains(path) {
                let replayed = entry.diagnostics.isEmpty
                    ? [] : entry.diagnostics.split(separator: "\n").compactMap { try? decoder.decode(Diagnostic.self, from: Data($0.utf8)) }
                diagnostics += replayed
                infos.append(FlowInfo(record: entry.record, shard: previous.shard(of: path), diagnostics: replayed, flow: nil, previous: entry, stat: sources[index].stat))
            }
        }
        return infos
    }

    /// Translation groups, and each page's key: the global key, the spec, its group's ids,
    /// languages and titles (the switcher), its OpenAPI description's content, its results and
    /// the injected head markup.
    ///
    /// A flow this build did not parse has the same spec and the same group as in the previous
    /// build (a changed spec is parsed with its whole group). When that build was this process's
    /// own (remembered by serve) and made its keys with the same global key, head markup and
    /// description contents, such a flow's key is the one it had: it is not computed again.
    func assignPageKeys(
        _ infos: inout [FlowInfo], _ previous: PreviousBuild, globalKey: String, apiDescriptions: APIDescriptionCache
    ) -> (groups: [String: [TranslationLink]], context: PageKeyContext) {
        // Only groups some translation names are listed; any other flow is a group of its own
        // (`translations(of:in:)`), which spares a list per flow at every rebuild.
        var groups: [String: [TranslationLink]] = [:]
        var descriptions = Set<String>()
        var translated = Set<String>()
        for index in infos.indices {
            let record = infos[index].record
            if !record.translationOf.isEmpty { translated.insert(record.translationOf) }
            if !record.openapi.isEmpty { descriptions.insert(record.openapi) }
        }
        if !translated.isEmpty {
            for index in infos.indices where translated.contains(infos[index].groupKey) {
                groups[infos[index].groupKey, default: []].append(Self.link(to: infos[index]))
            }
        }
        let context = PageKeyContext(
            globalKey: globalKey, headExtra: options.headExtra,
            descriptions: Dictionary(uniqueKeysWithValues: descriptions.map { ($0, apiDescriptions.contentHash(of: $0)) })
        )
        let known = previous.keyContext.map { old in
            old.globalKey == globalKey && old.headExtra == options.headExtra ? old.descriptions : nil
        } ?? nil
        var toCompute: [Int] = []
        for index in infos.indices {
            let openapi = infos[index].openapi
            if let known, infos[index].flow == nil, let old = infos[index].previous,
               openapi.isEmpty || (known[openapi] != nil && known[openapi] == context.descriptions[openapi]) {
                // (Compared first: a record described from the cache shares its storage with
                // the cache's entry, and a write would copy it.)
                if infos[index].record.pageKey != old.pageKey { infos[index].pageKey = old.pageKey }
            } else {
                toCompute.append(index)
            }
        }
        // A group's part of its members' keys, once per group (ids are unique, so the order is total).
        var memberParts: [String: [String]] = [:]
        for index in toCompute where memberParts[infos[index].groupKey] == nil {
            let members = Self.translations(of: infos[index], in: groups)
            var part = [String(members.count)]
            for member in members.sorted(by: { $0.id.utf8Precedes($1.id) }) { part.append(member.id + "\u{1F}" + member.lang + "\u{1F}" + member.title) }
            memberParts[infos[index].groupKey] = part
        }
        // One SHA-256 per page over length-prefixed parts, on all cores.
        let keys = OrderedSlots<String>(count: toCompute.count)
        // (The infos to key, copied out: a copy of the whole array would stay shared while the
        // keys are stored below, and the first store would copy all 2 000 infos.)
        let selected = toCompute.map { infos[$0] }
        let parts = memberParts
        let computed = toCompute
        DispatchQueue.concurrentPerform(iterations: computed.count) { position in
            let info = selected[position]
            var key = [globalKey, info.contentHash]
            key += parts[info.groupKey] ?? ["0"]
            key.append(info.openapi.isEmpty ? "-" : context.descriptions[info.openapi] ?? "-")
            key.append(options.results?.fingerprint(for: info.id) ?? "-")
            key.append(options.headExtra)
            keys.set(position, ContentHash.ofParts(key).description)
        }
        for (position, key) in keys.values.enumerated() { infos[computed[position]].pageKey = key }
        return (groups, context)
    }

    /// The members of a flow's translation group, in source order: the listed group, or the
    /// flow alone.
    static func translations(of info: FlowInfo, in groups: [String: [TranslationLink]]) -> [TranslationLink] {
        groups[info.groupKey] ?? [link(to: info)]
    }

    static func link(to info: FlowInfo) -> TranslationLink {
        TranslationLink(id: info.record.id, lang: info.record.lang, title: info.record.title)
    }

    /// Reuse a page whose key (and, for a parsed flow, content) is unchanged and whose file is
    /// still there; render the others, parsing now the ones that were not parsed.
    /// `listed`: the names in the output's `flows/` folder (the previous pages: one listing,
    /// not a stat per page), listed on another core from the start of the build.
    func planPages(_ infos: inout [FlowInfo], _ sources: [Source], _ previous: PreviousBuild, listed: Set<String>, report: inout SiteBuildReport) -> PagePlan {
        let previousPages = previous.cache == nil ? [] : listed
        var plan = PagePlan(render: [], reuse: [])
        plan.names.reserveCapacity(infos.count)
        var found = 0
        for index in infos.indices {
            let record = infos[index].record
            let name = Self.fileName(record.id)
            plan.names.append(name)
            let pageExists = previousPages.contains(name)
            if pageExists { found += 1 }
            let old = infos[index].previous?.record
            let parsed = infos[index].flow != nil
            if !parsed, old?.pageKey == record.pageKey, pageExists {
                plan.reuse.append(index)
            } else if parsed, old?.pageKey == record.pageKey, old?.contentHash == record.contentHash, pageExists {
                plan.reuse.append(index)
            } else {
                plan.render.append(index)
            }
        }
        // Pages no flow has any more: none when every previous page was found (file names are
        // unique: ids are), which spares a set of 2 000 names on every rebuild.
        if found < previousPages.count {
            plan.stale = Array(previousPages.subtracting(plan.names))
        }
        // A flow that needs a page but was not parsed (its key changed for another reason): parse it.
        let missing = plan.render.filter { infos[$0].flow == nil }
        if !missing.isEmpty {
            let sourceByPath = Dictionary(sources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            let late = parse(missing.compactMap { sourceByPath[infos[$0].path] })
            for (offset, index) in missing.enumerated() { infos[index].flow = late[offset].flow }
            report.parsedFiles += missing.map { infos[$0].path }
        }
        return plan
    }

    /// Renders the planned pages straight to disk, and every parsed flow's index card and search
    /// entries, on all cores. The first write error stops the build.
    /// `replacing`: the pages go into the served site itself (an update in place), each replaced atomically.
    func renderPages(
        _ infos: inout [FlowInfo], _ plan: PagePlan, groups: [String: [TranslationLink]], renderer: PageRenderer, into temporary: String, replacing: Bool = false
    ) throws {
        let needsCard = infos.indices.filter { infos[$0].flow != nil }
        let work = Array(Set(plan.render + needsCard)).sorted()
        let slots = OrderedSlots<(error: String?, card: [UInt8], search: [UInt8])>(count: work.count)
        let renderSet = Set(plan.render)
        let selected = work.map { infos[$0] }  // (not the whole array: see assignPageKeys)
        DispatchQueue.concurrentPerform(iterations: work.count) { position in
            let info = selected[position]
            guard let flow = info.flow else {
                slots.set(position, (nil, info.card, info.search))
                return
            }
            var error: String?
            let titles = PlainTitles(flow)
            if renderSet.contains(work[position]) {
                let path = temporary + "/flows/" + Self.fileName(info.id)
                do {
                    try renderer.flowPage(flow, translations: Self.translations(of: info, in: groups), titles: titles) { page in
                        try replacing ? FileSystem.replace(page, at: path) : FileSystem.write(page, to: path)
                    }
                } catch let writeError {
                    error = "\(writeError)"
                }
            }
            slots.set(position, (error, renderer.card(flow), renderer.searchEntries(flow, titles: titles)))
        }
        var renderError: String?
        for (position, index) in work.enumerated() {
            let value = slots.get(position)
            if renderError == nil { renderError = value.error }
            infos[index].card = value.card
            infos[index].search = value.search
        }
        if let renderError { throw SiteBuildError(renderError) }
    }
}

/// Work started on another thread (a global dispatch queue) and waited for: the build's two
/// cores each take a part (hard links of reused pages beside rendering, the index beside the
/// search shards).
final class Background<Value: Sendable>: Sendable {
    private let group = DispatchGroup()
    private let outcome = Locked<Result<Value, any Error>?>(nil)

    init(_ work: @escaping @Sendable () throws -> Value) {
        let outcome = outcome
        DispatchQueue.global().async(group: group) {
            let result = Result { try work() }
            outcome.withLock { $0 = result }
        }
    }

    /// Waits for the work; returns its value or throws its error.
    func value() throws -> Value {
        group.wait()
        return try outcome.value!.get()
    }
}

/// What every page key of a build was made with besides the page's own spec and group: kept
/// with a remembered build, so the next one can tell which keys cannot have changed.
struct PageKeyContext: Sendable, Equatable {
    var globalKey: String
    var headExtra: String
    /// Content hash of each OpenAPI description the flows name.
    var descriptions: [String: String]
}
