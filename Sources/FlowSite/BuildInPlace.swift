import FlowModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Site build, stage 5 for a long-running caller (serve): update the served site in place.

extension SiteBuilder {
    /// What a build wrote that the next one can start from (kept by `SiteBuildMemory`).
    struct WrittenState: Sendable {
        var cache: BuildCache
        var search: SearchShardFiles
    }

    /// Updates the previous site where it stands: only the changed pages, the index, search and
    /// not-found pages, the changed search shards and cache shards are written, each replaced
    /// atomically (a reader sees the old file or the new one), and what the new site no longer
    /// has is removed. The result is the same tree, byte for byte, as a full build's; at 2 000
    /// flows it saves the 2 000 hard links of a new tree and the removal of the old one, which
    /// took a core of their own during serve's rebuilds. The cache is written after everything
    /// it describes; on a failure it is invalidated, so the next build is a full one.
    ///
    /// `site` is the served site (`serve`), or the tree a one-off build took to swap in
    /// (`PreviousTree`): the same as the published site until this writes into it.
    /// `swappedInWhole`: `site` is such a tree. No reader sees it before the swap, so its cache
    /// need not come last: it is written on another core while the index and the search shards
    /// are made, as `writeSite` writes a new tree's (1.5 ms of a one-flow rebuild at 2 000 flows
    /// on the main thread, after everything else).
    func updateInPlace(
        _ setup: BuildSetup, site output: String, swappedInWhole: Bool, _ previous: PreviousBuild,
        _ infos: inout [FlowInfo], _ pages: PagePlan, _ groups: [String: [TranslationLink]], keyContext: PageKeyContext, timer: PhaseTimer
    ) throws -> WrittenState {
        var cacheWritten: Background<BuildCache>?
        do {
            try renderPages(&infos, pages, groups: groups, renderer: setup.renderer, into: output, replacing: true)
            timer.mark("render pages")
            if swappedInWhole {
                let written = infos
                cacheWritten = Background { try writeCache(setup, written, previous, keyContext: keyContext, output: output, into: output) }
            }
            let order = indexOrder(infos, config: setup.config)
            timer.mark("order")
            try FileSystem.makeDirectory(output + "/assets")
            try FileSystem.makeDirectory(output + "/assets/search")
            try FileSystem.makeDirectory(output + "/.flowspec")
            // The index and the rest of the tree on another core, the search shards on this one.
            let flows = infos
            let index = Background {
                let pages = indexPages(flows, order: order, groups: groups, renderer: setup.renderer, globalKey: setup.globalKey)
                try writeSiteFiles(setup, pages, infos: flows, order: order) { relative, produce in
                    try FileSystem.replace(at: output + "/" + relative, produce)
                }
                try updateAssets(setup, output: output)
            }
            let search: SearchShardFiles
            do {
                search = try searchShardFiles(infos, order: order, previous: previous, output: output)
                try writeSearchShards(search, root: output, replacing: true)
            } catch {
                // (Nothing may still be writing into the site once this returns.)
                _ = try? index.value()
                throw error
            }
            try index.value()
            removeStale(infos, pages: pages, setup: setup, output: output)
            timer.mark("index+search")
            // In the served site, last: the cache describes everything above.
            let cache = try cacheWritten?.value() ?? writeCache(setup, infos, previous, keyContext: keyContext, output: output, into: output)
            timer.mark("write cache")
            return WrittenState(cache: cache, search: search)
        } catch {
            // (Nothing may still be writing the cache when it is invalidated.)
            _ = try? cacheWritten?.value()
            BuildCache.invalidate(site: output)
            if let error = error as? SiteBuildError { throw error }
            throw SiteBuildError("updating the site failed: \(error)")
        }
    }

    /// The theme's assets (the same theme as the previous build's: its hash is in the global
    /// key) where one is missing, and the project's assets wherever they differ.
    private func updateAssets(_ setup: BuildSetup, output: String) throws {
        for asset in setup.theme.assets where !FileSystem.exists(output + "/" + asset.path) {
            try writeCreatingDirectories(asset.bytes, root: output, relative: asset.path, replacing: true)
        }
        let assetsDirectory = setup.resolve(setup.config.assetsDirectory ?? "assets")
        if FileSystem.isDirectory(assetsDirectory) {
            for relative in try FileSystem.listFiles(under: assetsDirectory) {
                let bytes = try FileSystem.read(assetsDirectory + "/" + relative)
                if (try? FileSystem.read(output + "/assets/" + relative)) != bytes {
                    try writeCreatingDirectories(bytes, root: output, relative: "assets/" + relative, replacing: true)
                }
            }
        }
    }

    /// Removes what a full build would not write: pages of flows that are gone, asset files the
    /// theme and the project no longer have, anything else at the top of the site, and the
    /// hidden files an interrupted replace left in `flows/` or at the top.
    private func removeStale(_ infos: [FlowInfo], pages: PagePlan, setup: BuildSetup, output: String) {
        for name in pages.stale {
            FileSystem.removeTree(output + "/flows/" + name)
        }
        var expected: Set<String> = ["index.html", "search.html", "404.html", "flows", "assets", ".flowspec"]
        if setup.config.absoluteBaseURL != nil { expected.insert("sitemap.xml") }
        for name in FileSystem.names(in: output) where !expected.contains(name) {
            FileSystem.removeTree(output + "/" + name)
        }
        var assets = Set(setup.theme.assets.map(\.path))
        assets.insert("assets/search/shards.js")
        for shard in 0..<Self.searchShards { assets.insert(Self.searchShardPath(shard)) }
        let assetsDirectory = setup.resolve(setup.config.assetsDirectory ?? "assets")
        if FileSystem.isDirectory(assetsDirectory), let project = try? FileSystem.listFiles(under: assetsDirectory) {
            for relative in project { assets.insert("assets/" + relative) }
        }
        for relative in (try? FileSystem.listFiles(under: output + "/assets")) ?? [] where !assets.contains("assets/" + relative) {
            FileSystem.removeTree(output + "/assets/" + relative)
        }
    }

    /// After a build: what the next one starts from, stamped as the files are when the build
    /// ends (the stamps are taken at once; the values are put together on another thread, which
    /// the next build waits for).
    func remember(_ written: WrittenState, output: String, in memory: SiteBuildMemory) {
        let cacheStamp = PreviousBuild.stamp(of: output)
        var fragmentStamps: [(path: String, stamp: String, shard: Int, lines: [SearchShardScript.Line])] = []
        for (shard, files) in written.search.written {
            let path = output + "/" + Self.searchShardPath(shard)
            if let stamp = FileSystem.stamp(path) { fragmentStamps.append((path, stamp, shard, files.lines)) }
        }
        let stamped = fragmentStamps
        memory.pending.withLock { pending in
            pending = Background {
                let next = PreviousBuild(written: written.cache)
                memory.previous.withLock { $0 = [output: .init(stamp: cacheStamp, value: next)] }
                memory.fragments.withLock { fragments in
                    fragments = fragments.filter { $0.key.hasPrefix(output + "/") }
                    for item in stamped {
                        // Where each flow's fragment lies in the script just written.
                        let ranges = SearchShardScript.layout(shard: item.shard, item.lines).ranges
                        var written: [String: SearchShardScript.Fragment] = [:]
                        for (line, range) in zip(item.lines, ranges) { written[line.path] = line.fragment.isEmpty ? .empty : .kept(range) }
                        fragments[item.path] = .init(stamp: item.stamp, value: written)
                    }
                }
            }
        }
    }
}
