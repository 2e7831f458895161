import FlowModel
import FlowOpenAPI
import FlowParser
import Foundation

// Site build, stage 1: configuration, theme and providers; where the output goes; what the
// previous build left there.

/// The configuration, theme and provider profiles of a build, and the key every page's cache
/// key starts from (renderer version, configuration bytes, theme).
struct BuildSetup: Sendable {
    var config: SiteConfig
    var configDirectory: String
    var theme: Theme
    var providers: ProviderCatalog
    var renderer: PageRenderer
    var globalKey: String
    /// The spec paths to read: the options' inputs, else `site.yml`'s `flows`.
    var inputs: [String]

    /// A path of `site.yml` relative to the folder that holds it.
    func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : configDirectory + "/" + path }

    static func load(_ options: SiteBuildOptions) throws -> BuildSetup {
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
        let themeDirectory = resolve(config.themeDirectory ?? "theme")
        let themeStamp = options.memory == nil ? nil : Theme.stamp(overrideDirectory: themeDirectory, labelOverrides: config.labels)
        if let memory = options.memory, let themeStamp, let known = SiteBuildMemory.recall(memory.theme, stamp: themeStamp) {
            theme = known
        } else {
            do {
                theme = try Theme.load(overrideDirectory: themeDirectory, labelOverrides: config.labels)
            } catch {
                throw SiteBuildError("theme: \(error)")
            }
            if let memory = options.memory, let themeStamp { memory.theme.withLock { $0 = .init(stamp: themeStamp, value: theme) } }
        }
        let inputs = options.inputs.isEmpty ? config.flows : options.inputs
        // Project provider profiles beside the specs decide which token cases a rule lists.
        let providers = ProviderCatalog.load(paths: inputs)
        var renderer = PageRenderer(theme: theme, config: config, results: options.results, headExtra: options.headExtra)
        renderer.providers = providers
        renderer.revision = config.showRevision ? GitRevision.short(in: configDirectory) : nil
        var globalHash = ContentHash()
        globalHash.combine(SiteBuilder.rendererVersion)
        globalHash.combine(configBytes)
        globalHash.combine(theme.hash)
        // Index cards show each flow's status: results that change make every card stale.
        globalHash.combine(options.results?.fingerprint ?? "-")
        // The footer's revision is on every page.
        globalHash.combine(renderer.revision ?? "-")
        // Project provider profiles decide the token cases a rule lists.
        for file in providers.files {
            globalHash.combine(file.path)
            globalHash.combine(file.text)
        }
        return BuildSetup(
            config: config, configDirectory: configDirectory, theme: theme, providers: providers, renderer: renderer,
            globalKey: globalHash.description, inputs: inputs
        )
    }
}

/// The output folder, and the folder and name the new tree is written beside it under.
struct OutputTarget: Sendable {
    var output: String
    var parentDirectory: String
    var outputName: String

    /// Refuses the root, the working directory, and an existing folder that is neither empty nor
    /// a site flowspec built (the build replaces the folder as a whole).
    static func locate(_ outputDirectory: String) throws -> OutputTarget {
        let output = FileSystem.absolute(outputDirectory)
        let target = OutputTarget(
            output: output, parentDirectory: FileSystem.parent(output),
            outputName: String(output.split(separator: "/").last ?? "_build")
        )
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
        return target
    }

    /// Where this process makes (or updates) the tree it swaps in: beside the output, hidden.
    var temporaryPath: String { parentDirectory + "/." + outputName + ".tmp-\(getpid())" }

    /// The new tree is written next to the old one and swapped in at the end; pages go to disk
    /// as soon as they are rendered (memory stays at one page per core).
    func makeTemporaryTree() throws -> String {
        let temporary = temporaryPath
        FileSystem.removeTree(temporary)
        do {
            try FileSystem.makeDirectory(parentDirectory)
            try FileSystem.makeDirectory(temporary)
            for directory in ["flows", "assets", ".flowspec"] { try FileSystem.makeDirectory(temporary + "/" + directory) }
        } catch {
            FileSystem.removeTree(temporary)
            throw SiteBuildError("cannot create \(temporary): \(error)")
        }
        return temporary
    }
}

/// The previous build's cache when it can be used (same global key, incremental build).
struct PreviousBuild: Sendable {
    var cache: BuildCache?
    /// Its entries by spec path.
    var entries: [String: BuildCache.Entry]
    /// Its entries' search and cache shards by spec path, each hashed once (a rebuild of 2 000
    /// flows asked for 8 000 shards).
    var shards: [String: Int] = [:]
    /// What its page keys were made with.
    var keyContext: PageKeyContext? { cache?.keyContext }

    /// The shard of a spec path: the previous build's when it had the path, else hashed.
    func shard(of path: String) -> Int { shards[path] ?? SiteBuilder.shard(of: path) }

    static func load(from output: String, globalKey: String, incremental: Bool, memory: SiteBuildMemory? = nil) -> PreviousBuild {
        if incremental, let memory,
           let known = SiteBuildMemory.recall(memory.previous, key: output, stamp: stamp(of: output)), known.cache?.globalKey == globalKey {
            return known
        }
        // The descriptions the previous build decoded: a changed flow is linted against them
        // without decoding them again.
        // (Bounded like every file flowspec reads: a larger one is ignored.)
        if incremental, case .success(let archive) = FileReader.read(
            output + "/" + BuildCache.descriptionsPath, limit: APIDescriptionLoader.maximumArchiveBytes) {
            APIDescriptionLoader.restore(archive)
        }
        var cache: BuildCache?
        if incremental, let previous = BuildCache.load(from: output, shards: SiteBuilder.searchShards), previous.globalKey == globalKey {
            cache = previous
        }
        let entries = Dictionary((cache?.entries ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        return PreviousBuild(cache: cache, entries: entries, shards: shardsByPath(cache))
    }

    /// The cache's entries' shards by path (the first entry of a path, as `entries` keeps it).
    static func shardsByPath(_ cache: BuildCache?) -> [String: Int] {
        guard let cache else { return [:] }
        // A plain loop: `Dictionary(zip(lazy map, …), uniquingKeysWith:)` went through generic
        // sequence code, 4.8 M instructions for 2 000 entries against 1.3 M.
        var shards: [String: Int] = [:]
        shards.reserveCapacity(cache.entries.count)
        // (Backwards, so that the first entry of a path is the one kept, as `entries` keeps it.)
        for index in cache.entries.indices.reversed() { shards[cache.entries[index].path] = cache.entryShards[index] }
        return shards
    }

    /// The stamps of the cache's files under a site folder.
    static func stamp(of output: String) -> String {
        SiteBuildMemory.stamp(of: [output + "/" + BuildCache.relativePath] + (0..<SiteBuilder.searchShards).map { output + "/" + BuildCache.shardPath($0) })
    }

}

extension PreviousBuild {
    /// What a build wrote, as the next build's previous build.
    init(written cache: BuildCache) {
        let entries = Dictionary(cache.entries.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.init(cache: cache, entries: entries, shards: Self.shardsByPath(cache))
    }
}
