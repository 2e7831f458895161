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
        var search = ""
        var diagnostics: [Diagnostic]
        /// The parsed flow; nil for a flow described from the cache.
        var flow: Flow?

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
        /// The names in the previous site's `flows/` folder.
        var existing: Set<String> = []
    }

    /// One info per source: parsed flows fresh, unchanged ones from the cache (their diagnostics
    /// replayed into `diagnostics`).
    func describeFlows(
        _ sources: [Source], _ specs: ParsedSpecs, _ plan: ParsePlan, _ previous: PreviousBuild, diagnostics: inout [Diagnostic]
    ) -> [FlowInfo] {
        var infos: [FlowInfo] = []
        let parsedByPath = Dictionary(specs.flows.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let decoder = JSONDecoder()
        for source in sources {
            if let flow = parsedByPath[source.path] {
                let plainTitle = MarkdownRenderer.plainText(source: flow.title).trimmingCharacters()
                let record = FlowRecord(
                    path: source.path, contentHash: source.hash, id: flow.id, lang: flow.lang,
                    translationOf: flow.translationOf ?? "", title: plainTitle, titleKey: plainTitle.lowercased(),
                    tags: flow.tags, card: "", openapi: APIDescriptionCache.file(for: flow) ?? "", pageKey: "")
                infos.append(FlowInfo(record: record, shard: previous.shard(of: source.path), diagnostics: specs.diagnosticsByFile[source.path] ?? [], flow: flow))
            } else if !plan.toParse.contains(source.path), let entry = previous.entries[source.path] {
                let replayed = entry.diagnostics.split(separator: "\n").compactMap { try? decoder.decode(Diagnostic.self, from: Data($0.utf8)) }
                diagnostics += replayed
                infos.append(FlowInfo(record: entry.record, shard: previous.shard(of: source.path), diagnostics: replayed, flow: nil))
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
        var groups: [String: [TranslationLink]] = [:]
        var descriptions = Set<String>()
        for index in infos.indices {
            groups[infos[index].groupKey, default: []].append(TranslationLink(id: infos[index].id, lang: infos[index].lang, title: infos[index].title))
            if !infos[index].openapi.isEmpty { descriptions.insert(infos[index].openapi) }
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
            if let known, infos[index].flow == nil, let old = previous.entries[infos[index].path],
               openapi.isEmpty || (known[openapi] != nil && known[openapi] == context.descriptions[openapi]) {
                infos[index].pageKey = old.pageKey
            } else {
                toCompute.append(index)
            }
        }
        // A group's part of its members' keys, once per group (ids are unique, so the order is total).
        var memberParts: [String: [String]] = [:]
        for index in toCompute where memberParts[infos[index].groupKey] == nil {
            let members = groups[infos[index].groupKey] ?? []
            var part = [String(members.count)]
            for member in members.sorted(by: { $0.id.utf8Precedes($1.id) }) { part.append(member.id + "\u{1F}" + member.lang + "\u{1F}" + member.title) }
            memberParts[infos[index].groupKey] = part
        }
        // One SHA-256 per page over length-prefixed parts, on all cores.
        let keys = OrderedSlots<String>(count: toCompute.count)
        let snapshot = infos
        let parts = memberParts
        let computed = toCompute
        DispatchQueue.concurrentPerform(iterations: computed.count) { position in
            let info = snapshot[computed[position]]
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

    /// Reuse a page whose key (and, for a parsed flow, content) is unchanged and whose file is
    /// still there; render the others, parsing now the ones that were not parsed.
    func planPages(_ infos: inout [FlowInfo], _ sources: [Source], _ previous: PreviousBuild, output: String, report: inout SiteBuildReport) -> PagePlan {
        // The previous pages, from one listing of their folder (not a stat per page).
        let previousPages = previous.cache == nil ? [] : FileSystem.names(in: output + "/flows")
        var plan = PagePlan(render: [], reuse: [], existing: previousPages)
        for (index, info) in infos.enumerated() {
            let pageExists = previousPages.contains(Self.fileName(info.id))
            let old = previous.entries[info.path]
            if info.flow == nil, old?.pageKey == info.pageKey, pageExists {
                plan.reuse.append(index)
            } else if info.flow != nil, old?.pageKey == info.pageKey, old?.contentHash == info.contentHash, pageExists {
                plan.reuse.append(index)
            } else {
                plan.render.append(index)
            }
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
        let slots = OrderedSlots<(error: String?, card: String, search: String)>(count: work.count)
        let renderSet = Set(plan.render)
        let infosSnapshot = infos
        DispatchQueue.concurrentPerform(iterations: work.count) { position in
            let info = infosSnapshot[work[position]]
            guard let flow = info.flow else {
                slots.set(position, (nil, info.card, info.search))
                return
            }
            var error: String?
            if renderSet.contains(work[position]) {
                let page = renderer.flowPageBytes(flow, translations: groups[info.groupKey] ?? [])
                do {
                    let path = temporary + "/flows/" + Self.fileName(info.id)
                    try replacing ? FileSystem.replace(page, at: path) : FileSystem.write(page, to: path)
                } catch let writeError {
                    error = "\(writeError)"
                }
            }
            slots.set(position, (error, renderer.card(flow), renderer.searchEntries(flow)))
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
struct PageKeyContext: Sendable {
    var globalKey: String
    var headExtra: String
    /// Content hash of each OpenAPI description the flows name.
    var descriptions: [String: String]
}
