import Dispatch
import FlowModel
import FlowOpenAPI
import Foundation

// Site build, stage 5: complete the new tree (assets, index, search, sitemap, cache) and swap it
// in atomically.

extension SiteBuilder {
    /// Theme and project assets, the index and search pages, the search shards, the sitemap.
    func writeTree(
        _ setup: BuildSetup, _ pages: IndexPages, _ search: SearchShardFiles, infos: [FlowInfo], order: [Int], output: String, into temporary: String
    ) throws {
        for asset in setup.theme.assets {
            try writeCreatingDirectories(asset.bytes, root: temporary, relative: asset.path)
        }
        let assetsDirectory = setup.resolve(setup.config.assetsDirectory ?? "assets")
        if FileSystem.isDirectory(assetsDirectory) {
            for relative in try FileSystem.listFiles(under: assetsDirectory) {
                try writeCreatingDirectories(try FileSystem.read(assetsDirectory + "/" + relative), root: temporary, relative: "assets/" + relative)
            }
        }
        try FileSystem.makeDirectory(temporary + "/assets/search")
        try writeSiteFiles(setup, pages, infos: infos, order: order) { relative, produce in
            try FileSystem.write(to: temporary + "/" + relative, produce)
        }
        for shard in search.reused {
            try FileSystem.linkOrCopy(output + "/" + Self.searchShardPath(shard), to: temporary + "/" + Self.searchShardPath(shard))
            try FileSystem.linkOrCopy(output + "/" + Self.searchIndexPath(shard), to: temporary + "/" + Self.searchIndexPath(shard))
        }
        try writeSearchShards(search, root: temporary, replacing: false)
    }

    /// The files every build writes whole, made by `write` from a path in the site and what
    /// produces the file's bytes: the index, search and not-found pages, the list of search
    /// shards, and the sitemap when the site has a `base-url`. The index page goes to its file
    /// in pieces as it is rendered.
    func writeSiteFiles(
        _ setup: BuildSetup, _ pages: IndexPages, infos: [FlowInfo], order: [Int],
        _ write: (String, ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> Void
    ) throws {
        try write("index.html") { sink in try setup.renderer.render(pages.index, to: sink) }
        for (relative, text) in [("search.html", pages.search), ("404.html", pages.notFound), ("assets/search/shards.js", pages.shardList)] {
            var text = text
            try write(relative) { sink in try text.withUTF8 { try sink(UnsafeRawBufferPointer($0)) } }
        }
        if let base = setup.config.absoluteBaseURL {
            var sitemap = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
            sitemap += "<url><loc>" + HTML.escape(base) + "index.html</loc></url>\n"
            for index in order { sitemap += "<url><loc>" + HTML.escape(base + "flows/" + Self.fileName(infos[index].id)) + "</loc></url>\n" }
            sitemap += "</urlset>\n"
            try write("sitemap.xml") { sink in try sitemap.withUTF8 { try sink(UnsafeRawBufferPointer($0)) } }
        }
    }

    /// What the next build reuses: every flow's fingerprint, ids, card and own diagnostics.
    /// `into` is the new tree, or the output itself when updating in place.
    func writeCache(
        _ setup: BuildSetup, _ infos: [FlowInfo], _ previous: PreviousBuild, keyContext: PageKeyContext, output: String, into site: String
    ) throws -> BuildCache {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let newCache = BuildCache(globalKey: setup.globalKey, entries: infos.map { info in
            // A flow described from the cache keeps its diagnostics as the cache has them.
            if info.flow == nil, let old = info.previous {
                return BuildCache.Entry(record: info.record, stat: info.stat, diagnostics: old.diagnostics)
            }
            let encoded = info.diagnostics.compactMap { (try? encoder.encode($0)).map { String(decoding: $0, as: UTF8.self) } }
            return BuildCache.Entry(record: info.record, stat: info.stat, diagnostics: encoded.joined(separator: "\n"))
        }, entryShards: infos.map(\.shard), keyContext: keyContext)
        try newCache.write(to: site, shards: Self.searchShards, previous: previous.cache, previousSite: output)
        // The decoded OpenAPI descriptions the flows name, for the next build's lint and pages.
        let archive = APIDescriptionLoader.archive(files: Set(infos.lazy.map(\.record.openapi).filter { !$0.isEmpty }).sorted())
        let archivePath = site + "/" + BuildCache.descriptionsPath
        try site == output ? FileSystem.replace(archive, at: archivePath) : FileSystem.write(archive, to: archivePath)
        return newCache
    }

    /// `replacing`: into the served site itself (an update in place), atomically.
    func writeCreatingDirectories(_ bytes: [UInt8], root: String, relative: String, replacing: Bool = false) throws {
        var directory = root
        for part in relative.split(separator: "/").dropLast() {
            directory += "/" + part
            try FileSystem.makeDirectory(directory)
        }
        try replacing ? FileSystem.replace(bytes, at: root + "/" + relative) : FileSystem.write(bytes, to: root + "/" + relative)
    }

    /// Puts the new tree in place: an atomic exchange where the system has one (the old tree
    /// then sits at the temporary path), otherwise rename old away, new in. The old tree is
    /// kept for the next build (`PreviousTree`) when `keepReplaced`, else removed with any tree
    /// kept before.
    func swapIn(_ temporary: String, _ target: OutputTarget, keepReplaced: Bool) throws {
        let output = target.output
        if !FileSystem.exists(output) {
            try FileSystem.rename(temporary, output)
            return
        }
        let old: String
        if FileSystem.exchange(temporary, output) {
            old = temporary
        } else {
            old = temporary + ".old"
            try FileSystem.rename(output, old)
            try FileSystem.rename(temporary, output)
        }
        if keepReplaced {
            PreviousTree.keep(old, for: target)
            return
        }
        for tree in [old, PreviousTree.keptPath(of: target)] where FileSystem.exists(tree) { FileSystem.discardTree(tree) }
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

/// Holds a build's models until the process exits (`SiteBuildOptions.skipTeardown`) or until a
/// background thread lets them go.
// @unchecked: it only holds a value (of any type); nothing reads or mutates it.
final class KeptAlive: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}
