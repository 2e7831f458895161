import Dispatch
import FlowLint
import FlowModel
import FlowParser
import Foundation

/// What to build and where.
public struct SiteBuildOptions: Sendable {
    /// Spec files or folders; empty means the `flows` of `site.yml` (default `flows/`).
    public var inputs: [String]
    /// Output folder; replaced as a whole when the build succeeds.
    public var outputDirectory: String
    /// `site.yml`; nil means `site/site.yml` when it exists, defaults otherwise.
    public var configPath: String?
    /// Check results to show beside the specs.
    public var results: SiteResults?
    /// Markup added to every page's `<head>` (`serve` injects its reload script); not cached.
    public var headExtra: String
    /// Reuse pages of the previous build whose inputs did not change.
    public var incremental: Bool
    /// Leave the build's models allocated when `build()` returns (freeing tens of thousands of
    /// small objects takes tens of milliseconds at 2 000 flows): for a process that exits right
    /// after, like clang's `-disable-free`. Never for a long-running caller such as `serve`.
    public var skipTeardown = false

    public init(
        inputs: [String] = [],
        outputDirectory: String = "site/_build",
        configPath: String? = nil,
        results: SiteResults? = nil,
        headExtra: String = "",
        incremental: Bool = true
    ) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
        self.configPath = configPath
        self.results = results
        self.headExtra = headExtra
        self.incremental = incremental
    }
}

/// The outcome of a build: diagnostics to print, and where the site is.
public struct SiteBuildReport: Sendable {
    /// Lint findings over every spec (cached ones replayed for unchanged files), sorted.
    public var diagnostics: [Diagnostic]
    /// False when lint errors stopped the build (nothing was written).
    public var succeeded: Bool
    /// Absolute path of the output folder and its `index.html`.
    public var outputDirectory: String
    public var indexPath: String
    /// Spec files that were built.
    public var files: [String]
    /// Flow pages rendered by this build and reused from the previous one (relative paths).
    public var renderedPages: [String]
    public var reusedPages: [String]
    /// Spec files parsed by this build (unchanged files are not parsed on an incremental build).
    public var parsedFiles: [String]
}

/// A problem with the build itself (configuration, theme, file system), as opposed to lint
/// findings about the specs.
public struct SiteBuildError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Builds the documentation site: lints the specs (errors stop the build), renders one page per
/// flow plus the index and search, and swaps the result in atomically. Deterministic: the same
/// inputs give byte-identical output. Incremental: pages whose inputs are unchanged are reused
/// from the previous build (hard links), and unchanged specs are not even parsed.
public struct SiteBuilder: Sendable {
    public var options: SiteBuildOptions
    public var parser: SpecParser

    /// Bump when page rendering changes in a way the theme hash does not capture.
    static let rendererVersion = "site-renderer 2"

    public init(options: SiteBuildOptions, parser: SpecParser = SpecParser()) {
        self.options = options
        self.parser = parser
    }

    private struct Source {
        var path: String
        /// Nil when the file was not read because its size and modification time match the cache.
        var bytes: [UInt8]?
        var hash: String
        var stat: String
    }

    /// Everything the index, search and switchers need about one flow.
    private struct FlowInfo {
        var path: String
        var contentHash: String
        var id: String
        var lang: String
        var translationOf: String
        var title: String
        /// Lowercased title, the index's sort key (kept in the cache: lowercasing is not cheap).
        var titleKey: String
        var tags: [String]
        var card: String
        var search: String
        var diagnostics: [Diagnostic]
        var flow: Flow?
        var pageKey = ""
        var groupKey: String { translationOf.isEmpty ? id : translationOf }
    }

    /// The spec paths a build reads: the given inputs, else `site.yml`'s `flows`, else `flows/`.
    /// `serve` watches the same paths it builds from.
    public static func specInputs(_ options: SiteBuildOptions) -> [String] {
        guard options.inputs.isEmpty else { return options.inputs }
        let configPath = options.configPath ?? (FileSystem.exists("site/site.yml") ? "site/site.yml" : nil)
        guard let configPath, let bytes = try? FileSystem.read(configPath),
            let config = try? SiteConfig.parse(String(decoding: bytes, as: UTF8.self), file: configPath)
        else { return SiteConfig().flows }
        return config.flows
    }

    public func build() throws -> SiteBuildReport {
        let timer = PhaseTimer(enabled: ProcessInfo.processInfo.environment["FLOWSPEC_SITE_TIMING"] != nil)
        defer { timer.mark("done") }
        // Configuration and theme.
        let configPath = options.configPath ?? (FileSystem.exists("site/site.yml") ? "site/site.yml" : nil)
        var config = SiteConfig()
        var configBytes: [UInt8] = []
        if let configPath {
            do { configBytes = try FileSystem.read(configPath) } catch { throw SiteBuildError("cannot read \(configPath): \(error)") }
            config = try SiteConfig.parse(String(decoding: configBytes, as: UTF8.self), file: configPath)
        }
        let configDirectory = configPath.map(FileSystem.parent) ?? "site"
        func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : configDirectory + "/" + path }
        let theme: Theme
        do {
            theme = try Theme.load(overrideDirectory: resolve(config.themeDirectory ?? "theme"), labelOverrides: config.labels)
        } catch {
            throw SiteBuildError("theme: \(error)")
        }
        // Project provider profiles beside the specs decide which token cases a rule lists.
        let providers = ProviderCatalog.load(paths: options.inputs.isEmpty ? config.flows : options.inputs)
        var configured = PageRenderer(theme: theme, config: config, results: options.results, headExtra: options.headExtra)
        configured.providers = providers
        let renderer = configured
        timer.mark("config+theme")

        // Output location and the previous build's cache.
        let output = FileSystem.absolute(options.outputDirectory)
        let parentDirectory = FileSystem.parent(output)
        let outputName = String(output.split(separator: "/").last ?? "_build")
        if output == "/" || output == FileSystem.absolute(".") {
            throw SiteBuildError("refusing to build into \(output)")
        }
        if FileSystem.exists(output) {
            // (Listing the folder only when it is not a previous site: that lists every page.)
            let isPreviousSite = FileSystem.exists(output + "/" + BuildCache.relativePath)
            guard isPreviousSite || (FileSystem.isDirectory(output) && ((try? FileSystem.listFiles(under: output))?.isEmpty ?? false)) else {
                throw SiteBuildError("refusing to replace \(output): it exists and is not a site built by flowspec (no \(BuildCache.relativePath))")
            }
        }
        var globalHash = ContentHash()
        globalHash.combine(Self.rendererVersion)
        globalHash.combine(configBytes)
        globalHash.combine(theme.hash)
        let globalKey = globalHash.description
        var cache: BuildCache?
        if options.incremental, let previous = BuildCache.load(from: output, shards: Self.searchShards), previous.globalKey == globalKey {
            cache = previous
        }
        timer.mark("read cache")
        let cached = Dictionary((cache?.entries ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

        timer.mark("cache index")
        // Sources: read and fingerprint every spec.
        var diagnostics: [Diagnostic] = []
        let inputs = options.inputs.isEmpty ? config.flows : options.inputs
        let files = SpecFiles.expand(inputs, diagnostics: &diagnostics)
        diagnostics += providers.diagnostics
        timer.mark("list specs")
        // Unchanged size and modification time: trust the cached hash and skip reading (like make
        // and git). Anything else is read and hashed, on all cores.
        var found: [Source?] = Array(repeating: nil, count: files.count)
        var toRead: [Int] = []
        var stats: [String?] = []
        stats.reserveCapacity(files.count)
        for (index, file) in files.enumerated() {
            let stat = FileSystem.statSignature(file)
            stats.append(stat)
            if let stat, let entry = cached[file], entry.stat == stat {
                found[index] = Source(path: file, bytes: nil, hash: entry.contentHash, stat: stat)
            } else {
                toRead.append(index)
            }
        }
        let reads = OrderedSlots<Result<(bytes: [UInt8], hash: String), FileSystem.Error>>(count: toRead.count)
        let readIndices = toRead
        DispatchQueue.concurrentPerform(iterations: readIndices.count) { position in
            do {
                let bytes = try FileSystem.read(files[readIndices[position]])
                reads.set(position, .success((bytes, ContentHash.of(bytes).description)))
            } catch let error as FileSystem.Error {
                reads.set(position, .failure(error))
            } catch {
                reads.set(position, .failure(FileSystem.Error(description: "\(error)")))
            }
        }
        for (position, index) in toRead.enumerated() {
            switch reads.get(position) {
            case .success(let read):
                found[index] = Source(path: files[index], bytes: read.bytes, hash: read.hash, stat: stats[index] ?? "")
            case .failure(let error):
                diagnostics.append(Diagnostic(.binaryFile, severity: .error, location: .start(of: files[index]), message: "cannot read the file: \(error)"))
            }
        }
        let sources = found.compactMap { $0 }

        timer.mark("read+hash")
        // Decide what to parse: everything without a cache; otherwise changed files and the
        // translation groups they touch (old and new ids), so switchers and corpus rules see them.
        var toParse = Set<String>()
        var parsedEarly: [String: ParseResult] = [:]
        if cache == nil {
            toParse = Set(sources.map(\.path))
        } else {
            var touchedGroups = Set<String>()
            let currentPaths = Set(sources.map(\.path))
            for source in sources where cached[source.path]?.contentHash != source.hash {
                toParse.insert(source.path)
                if let old = cached[source.path] {
                    touchedGroups.insert(old.translationOf.isEmpty ? old.id : old.translationOf)
                }
            }
            for entry in cache!.entries where !currentPaths.contains(entry.path) {
                touchedGroups.insert(entry.translationOf.isEmpty ? entry.id : entry.translationOf)
            }
            // New ids and groups of changed files need their parse; do it now.
            let changedSources = sources.filter { toParse.contains($0.path) }
            let changed = parse(changedSources)
            for (source, result) in zip(changedSources, changed) where parsedEarly[source.path] == nil { parsedEarly[source.path] = result }
            for result in changed {
                if let flow = result.flow { touchedGroups.insert(flow.translationOf ?? flow.id) }
            }
            for entry in cache!.entries where currentPaths.contains(entry.path) && !toParse.contains(entry.path) {
                if touchedGroups.contains(entry.translationOf.isEmpty ? entry.id : entry.translationOf) {
                    toParse.insert(entry.path)
                }
            }
            // An id that collides with an unchanged flow: lint everything so the rule reports it.
            let changedIDs = changed.compactMap { $0.flow?.id }
            let unchangedIDs = Set(cache!.entries.filter { currentPaths.contains($0.path) && !toParse.contains($0.path) }.map(\.id))
            if changedIDs.contains(where: unchangedIDs.contains) || Set(changedIDs).count != changedIDs.count {
                toParse = currentPaths
            }
        }

        timer.mark("parse changed")
        let parseSources = sources.filter { toParse.contains($0.path) }
        // Files parsed above to learn their ids are not parsed again.
        let remaining = parseSources.filter { parsedEarly[$0.path] == nil }
        var parsedLate = Dictionary(zip(remaining.map(\.path), parse(remaining)), uniquingKeysWith: { first, _ in first })
        parsedLate.merge(parsedEarly) { late, _ in late }
        let parsed = parseSources.map { parsedLate[$0.path]! }
        var parsedFlows: [Flow] = []
        var parsedDiagnostics: [Diagnostic] = []
        for result in parsed {
            parsedDiagnostics += result.diagnostics
            if let flow = result.flow { parsedFlows.append(flow) }
        }
        timer.mark("parse")
        parsedDiagnostics += Linter(parser: parser, providers: providers).lint(flows: parsedFlows)
        diagnostics += parsedDiagnostics
        var diagnosticsByFile: [String: [Diagnostic]] = [:]
        for diagnostic in parsedDiagnostics { diagnosticsByFile[diagnostic.location.file, default: []].append(diagnostic) }

        timer.mark("parse+lint")
        // Everything about every flow: parsed ones fresh, the others from the cache.
        var infos: [FlowInfo] = []
        let parsedByPath = Dictionary(parsedFlows.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let decoder = JSONDecoder()
        for source in sources {
            if let flow = parsedByPath[source.path] {
                let plainTitle = MarkdownRenderer.plainText(source: flow.title).trimmingCharacters()
                infos.append(FlowInfo(
                    path: source.path, contentHash: source.hash, id: flow.id, lang: flow.lang,
                    translationOf: flow.translationOf ?? "", title: plainTitle, titleKey: plainTitle.lowercased(),
                    tags: flow.tags, card: "", search: "", diagnostics: diagnosticsByFile[source.path] ?? [], flow: flow
                ))
            } else if !toParse.contains(source.path), let entry = cached[source.path] {
                let replayed = entry.diagnostics.split(separator: "\n").compactMap { try? decoder.decode(Diagnostic.self, from: Data($0.utf8)) }
                diagnostics += replayed
                infos.append(FlowInfo(
                    path: entry.path, contentHash: entry.contentHash, id: entry.id, lang: entry.lang, translationOf: entry.translationOf,
                    title: entry.title, titleKey: entry.titleKey, tags: entry.tags, card: entry.card, search: "", diagnostics: replayed, flow: nil
                ))
            }
        }
        diagnostics = diagnostics.sortedForOutput()
        var report = SiteBuildReport(
            diagnostics: diagnostics, succeeded: false, outputDirectory: output, indexPath: output + "/index.html",
            files: sources.map(\.path), renderedPages: [], reusedPages: [], parsedFiles: parseSources.map(\.path)
        )
        if diagnostics.contains(where: { $0.severity == .error }) { return report }

        timer.mark("infos")
        // Translation groups and page keys.
        var groups: [String: [TranslationLink]] = [:]
        for info in infos { groups[info.groupKey, default: []].append(TranslationLink(id: info.id, lang: info.lang, title: info.title)) }
        for index in infos.indices {
            let members = groups[infos[index].groupKey] ?? []
            var key = ContentHash()
            key.combine(globalKey)
            key.combine(infos[index].contentHash)
            for member in members.sorted(by: { $0.id < $1.id }) { key.combine(member.id + "\u{1F}" + member.lang + "\u{1F}" + member.title) }
            key.combine(options.results?.fingerprint(for: infos[index].id) ?? "-")
            key.combine(options.headExtra)
            infos[index].pageKey = key.description
        }

        timer.mark("keys")
        // Pages to render: parsed flows whose key changed or whose old page is missing.
        var renderIndices: [Int] = []
        var reuseIndices: [Int] = []
        // The previous pages, from one listing of their folder (not a stat per page).
        let previousPages = cache == nil ? [] : FileSystem.names(in: output + "/flows")
        for (index, info) in infos.enumerated() {
            let pageExists = previousPages.contains(Self.fileName(info.id))
            if info.flow == nil, cached[info.path]?.pageKey == info.pageKey, pageExists {
                reuseIndices.append(index)
            } else if info.flow != nil, cached[info.path]?.pageKey == info.pageKey, cached[info.path]?.contentHash == info.contentHash, pageExists {
                reuseIndices.append(index)
            } else {
                renderIndices.append(index)
            }
        }
        // A flow that needs a page but was not parsed (its key changed for another reason): parse it.
        let missing = renderIndices.filter { infos[$0].flow == nil }
        if !missing.isEmpty {
            let sourceByPath = Dictionary(sources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            let late = parse(missing.compactMap { sourceByPath[infos[$0].path] })
            for (offset, index) in missing.enumerated() { infos[index].flow = late[offset].flow }
            report.parsedFiles += missing.map { infos[$0].path }
        }

        timer.mark("reuse")
        // The new tree is written next to the old one and swapped in at the end; pages go to disk
        // as soon as they are rendered (memory stays at one page per core).
        let temporary = parentDirectory + "/." + outputName + ".tmp-\(getpid())"
        FileSystem.removeTree(temporary)
        do {
            try FileSystem.makeDirectory(parentDirectory)
            try FileSystem.makeDirectory(temporary)
            for directory in ["flows", "assets", ".flowspec"] { try FileSystem.makeDirectory(temporary + "/" + directory) }
        } catch {
            FileSystem.removeTree(temporary)
            throw SiteBuildError("cannot create \(temporary): \(error)")
        }

        // Reused pages are hard-linked into the new tree on a background thread while the changed
        // ones, the index and the search shards are made (links are bound by the file system, the
        // rest by the CPU).
        let linkNames = reuseIndices.map { "/flows/" + Self.fileName(infos[$0].id) }
        let linkError = Locked<String?>(nil)
        let linking = DispatchGroup()
        DispatchQueue.global().async(group: linking) {
            for name in linkNames {
                do {
                    try FileSystem.linkOrCopy(output + name, to: temporary + name)
                } catch {
                    linkError.withLock { $0 = $0 ?? "\(error)" }
                    return
                }
            }
        }
        defer { linking.wait() }

        // Render pages, cards and search entries on all cores.
        let needsCard = infos.indices.filter { infos[$0].flow != nil }
        let work = Array(Set(renderIndices + needsCard)).sorted()
        let slots = OrderedSlots<(error: String?, card: String, search: String)>(count: work.count)
        let renderSet = Set(renderIndices)
        let infosSnapshot = infos
        let groupsSnapshot = groups
        DispatchQueue.concurrentPerform(iterations: work.count) { position in
            let info = infosSnapshot[work[position]]
            guard let flow = info.flow else {
                slots.set(position, (nil, info.card, info.search))
                return
            }
            var error: String?
            if renderSet.contains(work[position]) {
                let page = renderer.flowPageBytes(flow, translations: groupsSnapshot[info.groupKey] ?? [])
                do {
                    try FileSystem.write(page, to: temporary + "/flows/" + Self.fileName(info.id))
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
        if let renderError {
            linking.wait()
            FileSystem.removeTree(temporary)
            throw SiteBuildError(renderError)
        }

        timer.mark("render pages")
        // Index order: navigation first, then by translation group and language.
        // Sort keys computed once per flow, not per comparison.
        let navigationRank = Dictionary(config.navigation.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let titleByID = Dictionary(infos.map { ($0.id, $0.titleKey) }, uniquingKeysWith: { first, _ in first })
        let languageRanks = Dictionary(config.languages.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        struct OrderKey {
            var navigation: Int
            var groupTitle: String
            var group: String
            var isOriginal: Bool
            var language: Int
            var id: String
        }
        let keys = infos.map { info in
            OrderKey(
                navigation: navigationRank[info.id] ?? navigationRank[info.groupKey] ?? Int.max,
                groupTitle: titleByID[info.groupKey] ?? info.titleKey,
                group: info.groupKey, isOriginal: info.groupKey == info.id,
                language: languageRanks[info.lang] ?? config.languages.count, id: info.id
            )
        }
        let order = infos.indices.sorted { a, b in
            let x = keys[a], y = keys[b]
            if x.navigation != y.navigation { return x.navigation < y.navigation }
            // Byte order (not Unicode canonical order, which is slow for non-ASCII titles):
            // deterministic, and the same as canonical order for ASCII.
            if x.groupTitle != y.groupTitle { return x.groupTitle.utf8.lexicographicallyPrecedes(y.groupTitle.utf8) }
            if x.group != y.group { return x.group.utf8.lexicographicallyPrecedes(y.group.utf8) }
            if x.isOriginal != y.isOriginal { return x.isOriginal }
            if x.language != y.language { return x.language < y.language }
            return x.id < y.id
        }
        var tagCounts: [String: Int] = [:]
        for info in infos { for tag in Set(info.tags) { tagCounts[tag, default: 0] += 1 } }
        let tags = tagCounts.keys.sorted().map { PageRenderer.TagCount(name: $0, count: tagCounts[$0]!) }
        timer.mark("order")
        var cardsHTML: [UInt8] = []
        cardsHTML.reserveCapacity(order.reduce(0) { $0 + infos[$1].card.utf8.count })
        for index in order { cardsHTML.append(contentsOf: infos[index].card.utf8) }
        let indexHTML = renderer.indexPage(cardsHTML: cardsHTML, tags: tags, flowCount: infos.count)
        let searchHTML = renderer.searchPage(shards: Self.searchShards)
        timer.mark("index page")

        // Search index in shards (a flow's shard comes from its path), so a rebuild rewrites only
        // the shards whose flows changed. Each shard keeps its flows' fragments in the cache.
        var shardMembers = [[Int]](repeating: [], count: Self.searchShards)
        for index in order { shardMembers[Self.shard(of: infos[index].path)].append(index) }
        var oldShardMembers = [[String]](repeating: [], count: Self.searchShards)
        for entry in cache?.entries ?? [] { oldShardMembers[Self.shard(of: entry.path)].append(entry.path) }
        var shardFiles: [Int: (js: String, cache: [UInt8])] = [:]
        var reusedShards: [Int] = []
        for shard in 0..<Self.searchShards {
            let members = shardMembers[shard]
            let unchanged = cache != nil && members.allSatisfy { infos[$0].flow == nil }
                && Set(members.map { infos[$0].path }) == Set(oldShardMembers[shard])
                && FileSystem.exists(output + "/" + Self.searchShardPath(shard))
            if unchanged { reusedShards.append(shard); continue }
            var fragments: [String: String] = [:]
            if members.contains(where: { infos[$0].flow == nil }),
               let bytes = try? FileSystem.read(output + "/" + Self.searchCachePath(shard)) {
                fragments = BuildCache.parseFragments(bytes)
            }
            var parts: [String] = []
            var cacheLines: [(String, String)] = []
            for index in members {
                let fragment = infos[index].flow != nil ? infos[index].search : (fragments[infos[index].path] ?? "")
                if !fragment.isEmpty { parts.append(fragment) }
                cacheLines.append((infos[index].path, fragment))
            }
            var js = "/* flowspec search index, shard \(shard): [href, title, context, text, lang] per entry. */\n"
            js += "window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([\n"
            js += parts.joined(separator: ",\n")
            js += "\n]);\n"
            shardFiles[shard] = (js, BuildCache.serializeFragments(cacheLines))
        }

        timer.mark("index+search")
        // Complete the new tree, then swap.
        do {
            linking.wait()
            if let error = linkError.withLock({ $0 }) { throw SiteBuildError(error) }
            timer.mark("links (wait)")
            for asset in theme.assets {
                try writeCreatingDirectories(asset.bytes, root: temporary, relative: asset.path)
            }
            let assetsDirectory = resolve(config.assetsDirectory ?? "assets")
            if FileSystem.isDirectory(assetsDirectory) {
                for relative in try FileSystem.listFiles(under: assetsDirectory) {
                    try writeCreatingDirectories(try FileSystem.read(assetsDirectory + "/" + relative), root: temporary, relative: "assets/" + relative)
                }
            }
            try FileSystem.write(indexHTML, to: temporary + "/index.html")
            try FileSystem.write(searchHTML, to: temporary + "/search.html")
            try FileSystem.makeDirectory(temporary + "/assets/search")
            for shard in reusedShards {
                try FileSystem.linkOrCopy(output + "/" + Self.searchShardPath(shard), to: temporary + "/" + Self.searchShardPath(shard))
                try FileSystem.linkOrCopy(output + "/" + Self.searchCachePath(shard), to: temporary + "/" + Self.searchCachePath(shard))
            }
            for (shard, files) in shardFiles.sorted(by: { $0.key < $1.key }) {
                try FileSystem.write(files.js, to: temporary + "/" + Self.searchShardPath(shard))
                try FileSystem.write(files.cache, to: temporary + "/" + Self.searchCachePath(shard))
            }
            if let base = config.absoluteBaseURL {
                var sitemap = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
                sitemap += "<url><loc>" + HTML.escape(base) + "index.html</loc></url>\n"
                for index in order { sitemap += "<url><loc>" + HTML.escape(base + "flows/" + Self.fileName(infos[index].id)) + "</loc></url>\n" }
                sitemap += "</urlset>\n"
                try FileSystem.write(sitemap, to: temporary + "/sitemap.xml")
            }
            timer.mark("write index")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let statByPath = Dictionary(sources.map { ($0.path, $0.stat) }, uniquingKeysWith: { first, _ in first })
            let newCache = BuildCache(globalKey: globalKey, entries: infos.map { info in
                let encoded = info.diagnostics.compactMap { (try? encoder.encode($0)).map { String(decoding: $0, as: UTF8.self) } }
                return BuildCache.Entry(
                    path: info.path, stat: statByPath[info.path] ?? "", contentHash: info.contentHash, id: info.id, lang: info.lang, translationOf: info.translationOf,
                    title: info.title, titleKey: info.titleKey, pageKey: info.pageKey, tags: info.tags, card: info.card,
                    diagnostics: encoded.joined(separator: "\n")
                )
            })
            try newCache.write(to: temporary, shards: Self.searchShards, shardOf: Self.shard(of:), previous: cache, previousSite: output)
            timer.mark("write cache")
            try swapIn(temporary, output)
            timer.mark("swap")
        } catch {
            linking.wait()
            FileSystem.removeTree(temporary)
            if let error = error as? SiteBuildError { throw error }
            throw SiteBuildError("writing the site failed: \(error)")
        }

        report.succeeded = true
        report.renderedPages = renderIndices.map { "flows/" + Self.fileName(infos[$0].id) }.sorted()
        report.reusedPages = reuseIndices.map { "flows/" + Self.fileName(infos[$0].id) }.sorted()
        if options.skipTeardown {
            _ = Unmanaged.passRetained(KeptAlive((infos, parsed, parsedFlows, sources, cached, cache as Any)))
        }
        return report
    }

    /// Number of search-index files: enough that one changed flow rewrites a small part of the
    /// index, few enough that the search page loads them at once.
    static let searchShards = 16

    static func shard(of path: String) -> Int {
        Int(ContentHash.of(path).low % UInt64(searchShards))
    }

    static func searchShardPath(_ shard: Int) -> String { "assets/search/\(shard).js" }
    static func searchCachePath(_ shard: Int) -> String { ".flowspec/search-\(shard)" }

    /// Page file name for a flow id (ids are `[a-z0-9][a-z0-9._-]*`; anything else is replaced).
    static func fileName(_ id: String) -> String {
        // Fast path: an id that is already a safe name (the usual case).
        if let first = id.utf8.first, first != UInt8(ascii: "."), id.utf8.allSatisfy({ byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }) {
            return id + ".html"
        }
        let safe = String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "-" })
        return (safe.isEmpty || safe.hasPrefix(".") ? "flow-" + safe : safe) + ".html"
    }

    private func parse(_ sources: [Source]) -> [ParseResult] {
        let slots = OrderedSlots<ParseResult>(count: sources.count)
        let parser = self.parser
        DispatchQueue.concurrentPerform(iterations: sources.count) { index in
            let source = sources[index]
            guard let bytes = source.bytes ?? (try? FileSystem.read(source.path)) else {
                slots.set(index, ParseResult(flow: nil, diagnostics: [Diagnostic(.binaryFile, severity: .error, location: .start(of: source.path), message: "cannot read the file")]))
                return
            }
            slots.set(index, parser.parse(bytes: bytes, file: source.path))
        }
        return (0..<sources.count).map { slots.get($0) }
    }

    private func writeCreatingDirectories(_ bytes: [UInt8], root: String, relative: String) throws {
        var directory = root
        for part in relative.split(separator: "/").dropLast() {
            directory += "/" + part
            try FileSystem.makeDirectory(directory)
        }
        try FileSystem.write(bytes, to: root + "/" + relative)
    }

    /// Puts the new tree in place: an atomic exchange where the system has one (the old tree
    /// then sits at the temporary path and is removed), otherwise rename old away, new in.
    private func swapIn(_ temporary: String, _ output: String) throws {
        if !FileSystem.exists(output) {
            try FileSystem.rename(temporary, output)
            return
        }
        if FileSystem.exchange(temporary, output) {
            // The previous site now sits at the temporary path: move it out of the way under a
            // unique name and let a detached process delete it.
            let trash = temporary + ".old-\(DispatchTime.now().uptimeNanoseconds)"
            if (try? FileSystem.rename(temporary, trash)) != nil {
                FileSystem.removeTreeInBackground(trash)
            } else {
            FileSystem.removeTree(temporary)
            }
            return
        }
        let old = temporary + ".old"
        try FileSystem.rename(output, old)
        try FileSystem.rename(temporary, output)
        FileSystem.removeTree(old)
    }
}

/// Prints how long each phase of a build took (FLOWSPEC_SITE_TIMING=1), for profiling.
final class PhaseTimer: Sendable {
    private let enabled: Bool
    private let last = Locked(DispatchTime.now())

    init(enabled: Bool) { self.enabled = enabled }

    func mark(_ phase: String) {
        guard enabled else { return }
        let now = DispatchTime.now()
        let previous = last.withLock { last in
            defer { last = now }
            return last
        }
        let ms = Double(now.uptimeNanoseconds - previous.uptimeNanoseconds) / 1_000_000
        FileHandle.standardError.write(Data("[site] \(phase): \(String(format: "%.1f", ms)) ms\n".utf8))
    }
}

/// Holds values until the process exits (`SiteBuildOptions.skipTeardown`).
// @unchecked: it only holds a value (of any type) until exit; nothing reads or mutates it.
private final class KeptAlive: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}
