import Dispatch
import FlowLint
import FlowModel
import FlowOpenAPI
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
    /// What a long-running caller keeps between builds (`serve`); with it, a build after the
    /// first updates the site in place, each file replaced atomically, instead of writing a new
    /// tree and swapping it in. Nil for a one-off build.
    public var memory: SiteBuildMemory?
    /// The specs as the caller just listed and stat'ed them (`serve`, after each poll); used
    /// when taken of the same inputs the build reads, else the build takes its own.
    public var specs: SpecSnapshot?

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
    /// Flow pages rendered by this build and reused from the previous one (relative paths,
    /// sorted), made when asked for: at 2 000 flows, putting the paths together and sorting them
    /// was a millisecond at the end of every one-flow rebuild, for callers that print counts.
    public var renderedPages: [String] { pagePaths(pages.render) }
    public var reusedPages: [String] { pagePaths(pages.reuse) }
    public var renderedPageCount: Int { pages.render.count }
    public var reusedPageCount: Int { pages.reuse.count }
    /// Each flow page's file name, and which of them were rendered and reused.
    var pages = (names: [String](), render: [Int](), reuse: [Int]())
    /// Spec files parsed by this build (unchanged files are not parsed on an incremental build).
    public var parsedFiles: [String]
    /// The OpenAPI descriptions the flows name (paths as the build read them), sorted, and the
    /// project provider profiles read: `serve` rebuilds when one changes.
    public var descriptions: [String] = []
    public var providerProfiles: [String] = []

    private func pagePaths(_ positions: [Int]) -> [String] {
        // (Page names are ASCII: byte order is `sorted()`'s.)
        positions.map { "flows/" + pages.names[$0] }.sortedByBytes()
    }
}

/// A problem with the build itself (configuration, theme, file system), as opposed to lint
/// findings about the specs.
public struct SiteBuildError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// The previous build's output cannot be built on: the build starts again as a full one.
    var buildsEverything = false
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// A search script a rebuild takes unchanged flows' fragments from is missing, or is not the
    /// one its index describes (edited, minified).
    static var previousSearchUnusable: SiteBuildError {
        var error = SiteBuildError("the previous build's search index does not match its scripts")
        error.buildsEverything = true
        return error
    }
}

/// Builds the documentation site: lints the specs (errors stop the build), renders one page per
/// flow plus the index and search, and swaps the result in atomically. Deterministic: the same
/// inputs give byte-identical output. Incremental: pages whose inputs are unchanged are reused
/// from the previous build (hard links), and unchanged specs are not even parsed.
public struct SiteBuilder: Sendable {
    public var options: SiteBuildOptions
    public var parser: SpecParser

    /// Bump when page rendering changes in a way the theme hash does not capture (4: prose
    /// followed directly by a table no longer begins with the front matter's `---`).
    static let rendererVersion = "site-renderer 4"

    public init(options: SiteBuildOptions, parser: SpecParser = SpecParser()) {
        self.options = options
        self.parser = parser
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

    /// The build as a pipeline of named stages, each in its own file: set up (BuildSetup), read
    /// and fingerprint, parse and lint (BuildSources), describe every flow and plan its page
    /// (BuildPages), render, order the index and shard the search (BuildIndex), write the new
    /// tree and swap it in (BuildOutput).
    public func build() throws -> SiteBuildReport {
        let timer = PhaseTimer(enabled: ProcessInfo.processInfo.environment["FLOWSPEC_SITE_TIMING"] != nil)
        defer { timer.mark("done") }
        options.memory?.settle()
        let setup = try BuildSetup.load(options)
        timer.mark("config+theme")
        // Prose is rendered while each spec is parsed, from its own nodes, as the site shows it.
        var builder = self
        builder.parser.renderingProse = ProseRendering(allowRawHTML: setup.config.allowRawHTML)
        do {
            return try builder.build(setup, timer: timer)
        } catch let error as SiteBuildError where error.buildsEverything && builder.options.incremental {
            builder.options.incremental = false
            return try builder.build(setup, timer: timer)
        }
    }

    private func build(_ setup: BuildSetup, timer: PhaseTimer) throws -> SiteBuildReport {
        let snapshot = specSnapshot(setup)
        let target = try OutputTarget.locate(options.outputDirectory)
        let previousPages = Background { [output = target.output] in FileSystem.names(in: output + "/flows") }
        // A one-off build takes the tree the last one replaced (PreviousTree) on another core,
        // and puts it back unless it swaps it in.
        let taken = options.incremental && options.memory == nil ? Background { PreviousTree.take(for: target) } : nil
        var treeHandled = false
        defer { if !treeHandled, let tree = (try? taken?.value()) ?? nil { tree.putBack(for: target) } }
        let previous = PreviousBuild.load(from: target.output, globalKey: setup.globalKey, incremental: options.incremental, memory: options.memory)
        timer.mark("read cache")
        var diagnostics: [Diagnostic] = []
        let sources = readSources(setup, try snapshot.value(), previous, diagnostics: &diagnostics)
        timer.mark("read+hash")
        let plan = planParse(sources, previous)
        timer.mark("parse changed")
        let specs = parseAndLint(sources, plan, providers: setup.providers)
        diagnostics += specs.diagnostics
        timer.mark("parse+lint")
        var infos = describeFlows(sources, specs, plan, previous, diagnostics: &diagnostics)
        diagnostics = diagnostics.sortedForOutput()
        var report = SiteBuildReport(
            diagnostics: diagnostics, succeeded: false, outputDirectory: target.output, indexPath: target.output + "/index.html",
            files: sources.map(\.path), parsedFiles: specs.sources.map(\.path)
        )
        report.descriptions = Set(infos.lazy.map { $0.record.openapi }.filter { !$0.isEmpty }).sorted()
        report.providerProfiles = setup.providers.files.map(\.path)
        if diagnostics.contains(where: { $0.severity == .error }) { return report }
        timer.mark("infos")
        let (groups, keyContext) = assignPageKeys(&infos, previous, globalKey: setup.globalKey, apiDescriptions: setup.renderer.apiDescriptions)
        timer.mark("keys")
        let pages = planPages(&infos, sources, previous, listed: try previousPages.value(), report: &report)
        timer.mark("reuse")
        let written: WrittenState
        if options.memory != nil, previous.cache != nil, FileSystem.isDirectory(target.output) {
            written = try updateInPlace(setup, site: target.output, swappedInWhole: false, previous, &infos, pages, groups, keyContext: keyContext, timer: timer)
        } else if previous.cache != nil, let tree = (try? taken?.value()) ?? nil {
            timer.mark("take previous tree (wait)")
            written = try updateInPlace(setup, site: tree.path, swappedInWhole: true, previous, &infos, pages, groups, keyContext: keyContext, timer: timer)
            treeHandled = true
            FileSystem.settleReplacements()
            try swapIn(tree.path, target, keepReplaced: pages.fewChanged)
            timer.mark("swap")
        } else {
            // (A tree taken but not usable goes back first: the new tree is made at its path.)
            if let tree = (try? taken?.value()) ?? nil { tree.putBack(for: target) }
            treeHandled = true
            written = try writeSite(setup, target, previous, &infos, pages, groups, keyContext: keyContext, timer: timer)
        }
        options.memory.map { remember(written, output: target.output, in: $0) }
        report.succeeded = true
        report.pages = (pages.names, pages.render, pages.reuse)
        // The build's models: tens of thousands of small objects at 2 000 flows, whose freeing
        // took tens of milliseconds. A process that exits right after keeps them; a long-running
        // caller (serve) has them freed on another thread, after this build has returned.
        let models = Unmanaged.passRetained(KeptAlive((consume infos, consume specs, consume sources, consume previous)))
        if !options.skipTeardown {
            DispatchQueue.global(qos: .utility).async { models.release() }
        }
        return report
    }

    /// Renders into a new tree beside the old one (reused pages hard-linked in the background
    /// meanwhile), then swaps it in; on any failure the new tree is removed and the old stays.
    private func writeSite(
        _ setup: BuildSetup, _ target: OutputTarget, _ previous: PreviousBuild,
        _ infos: inout [FlowInfo], _ pages: PagePlan, _ groups: [String: [TranslationLink]], keyContext: PageKeyContext, timer: PhaseTimer
    ) throws -> WrittenState {
        let temporary = try target.makeTemporaryTree()
        // Reused pages are hard-linked into the new tree on another core meanwhile (links are
        // bound by the file system, the rest by the CPU).
        let names = pages.reuse.map { "/flows/" + Self.fileName(infos[$0].id) }
        let links = Background { [output = target.output] in
            do {
                for name in names { try FileSystem.linkOrCopy(output + name, to: temporary + name) }
            } catch {
                throw SiteBuildError("\(error)")
            }
        }
        var cacheWritten: Background<BuildCache>?
        do {
            try renderPages(&infos, pages, groups: groups, renderer: setup.renderer, into: temporary)
            timer.mark("render pages")
            // The cache is written on another core meanwhile: it goes into the new tree, which is
            // swapped in whole, so it need not be the last file written (13 ms at 2 000 flows).
            let written = infos
            cacheWritten = Background { [self] in
                try writeCache(setup, written, previous, keyContext: keyContext, output: target.output, into: temporary)
            }
            let order = indexOrder(infos, config: setup.config)
            timer.mark("order")
            let index = indexPages(infos, order: order, groups: groups, renderer: setup.renderer, globalKey: setup.globalKey)
            timer.mark("index page")
            let search = try searchShardFiles(infos, order: order, previous: previous, output: target.output)
            timer.mark("index+search")
            try links.value()
            timer.mark("links (wait)")
            try writeTree(setup, index, search, infos: infos, order: order, output: target.output, into: temporary)
            timer.mark("write index")
            let cache = try cacheWritten!.value()
            timer.mark("write cache (wait)")
            try swapIn(temporary, target, keepReplaced: pages.fewChanged)
            timer.mark("swap")
            return WrittenState(cache: cache, search: search)
        } catch {
            _ = try? links.value()
            _ = try? cacheWritten?.value()
            FileSystem.removeTree(temporary)
            if let error = error as? SiteBuildError { throw error }
            throw SiteBuildError("writing the site failed: \(error)")
        }
    }

    /// Number of search-index files: enough that one changed flow rewrites a small part of the
    /// index, few enough that the search page loads them at once.
    static let searchShards = 16

    static func shard(of path: String) -> Int {
        Int(ContentHash.of(path).low % UInt64(searchShards))
    }

    static func searchShardPath(_ shard: Int) -> String { "assets/search/\(shard).js" }
    static func searchIndexPath(_ shard: Int) -> String { ".flowspec/search-\(shard)" }

    /// Page file name for a flow id (ids are `[a-z0-9][a-z0-9._-]*`; anything else is replaced).
    static func fileName(_ id: String) -> String {
        // Fast path: an id that is already a safe name (the usual case), checked on its bytes.
        func isSafe(_ bytes: some Collection<UInt8>) -> Bool {
            guard let first = bytes.first, first != UInt8(ascii: ".") else { return false }
            for byte in bytes {
                let safe = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                if !safe { return false }
            }
            return true
        }
        if id.utf8.withContiguousStorageIfAvailable(isSafe) ?? isSafe(id.utf8) {
            return id + ".html"
        }
        let safe = String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "-" })
        return (safe.isEmpty || safe.hasPrefix(".") ? "flow-" + safe : safe) + ".html"
    }
}

extension SiteBuilder {
    /// Starts, on another core, what every build does first and what depends on nothing it is
    /// given: the built-in provider profiles (which warms Yams too) and the embedded theme (its
    /// templates, hash and labels). `build` and `serve` call it before their command line is
    /// parsed, which keeps the first core busy meanwhile (several milliseconds of a one-flow
    /// rebuild; docs/benchmarks.md). (Content hashes need no set-up: SHA-256 goes through
    /// OpenSSL's low-level functions, not EVP's providers.)
    public static func prepare() {
        DispatchQueue.global(qos: .userInitiated).async {
            _ = Theme.embedded
            _ = ProviderCatalog.builtIn
        }
    }
}

extension SiteBuilder {
    /// Starts decoding OpenAPI descriptions on other threads: `serve` names the ones its first
    /// build's flows use, so the first edit of a flow finds its description decoded.
    public static func prefetchDescriptions(_ files: [String]) {
        APIDescriptionLoader.prefetch(files)
    }
}
