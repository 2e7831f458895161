import Dispatch
import FlowLint
import FlowModel
import FlowOpenAPI
import FlowParser
import Foundation

// Site build, stage 2: read and fingerprint the specs, decide which to parse, parse and lint.

extension SiteBuilder {
    struct Source: Sendable {
        var path: String
        /// Nil when the file was not read because its size and modification time match the cache.
        var bytes: [UInt8]?
        var hash: String
        var stat: String
        /// The previous build's entry for this path, looked up once here: the later stages ask
        /// for it per flow, and at 2 000 flows each lookup by path was a string hash.
        var previous: BuildCache.Entry?
    }

    /// What to parse: every spec without a cache; otherwise the changed ones and the translation
    /// groups they touch. Changed files are parsed while planning (their ids decide the groups).
    struct ParsePlan: Sendable {
        var toParse: Set<String>
        var parsedEarly: [String: ParseResult]
    }

    /// The parse and lint of the specs in the plan.
    struct ParsedSpecs: Sendable {
        /// The sources parsed by this build, in source order, and their results.
        var sources: [Source]
        var results: [ParseResult]
        var flows: [Flow]
        /// Parse and lint findings, also by file (the cache keeps each file's own).
        var diagnostics: [Diagnostic]
        var diagnosticsByFile: [String: [Diagnostic]]
    }

    /// The specs listed and stat'ed: the caller's snapshot when it is of the inputs this build
    /// reads, else taken on another core while this one reads the previous build's cache (they
    /// were a third of a one-flow rebuild of 2 000 flows, one after the other).
    func specSnapshot(_ setup: BuildSetup) -> Background<SpecSnapshot> {
        let inputs = setup.inputs
        if let given = options.specs, given.inputs == inputs { return Background { given } }
        return Background { SpecSnapshot.take(inputs) }
    }

    /// Reads and fingerprints every spec. Unchanged size and modification time: trust the cached
    /// hash and skip reading (like make and git). Anything else is read and hashed, on all cores.
    func readSources(_ setup: BuildSetup, _ snapshot: SpecSnapshot, _ previous: PreviousBuild, diagnostics: inout [Diagnostic]) -> [Source] {
        let files = snapshot.files
        let stats = snapshot.stats
        diagnostics += snapshot.diagnostics
        diagnostics += setup.providers.diagnostics
        var found: [Source?] = Array(repeating: nil, count: files.count)
        var toRead: [Int] = []
        var earlier: [BuildCache.Entry?] = Array(repeating: nil, count: files.count)
        for (index, file) in files.enumerated() {
            let stat = stats[index]
            let entry = previous.entries[file]
            if let stat, let entry, entry.stat == stat {
                found[index] = Source(path: file, bytes: nil, hash: entry.contentHash, stat: stat, previous: entry)
            } else {
                earlier[index] = entry
                toRead.append(index)
            }
        }
        // A changed spec is linted against its OpenAPI description: the descriptions the changed
        // files named in the previous build are decoded on another core while this one reads,
        // hashes and parses. Only those, and only a few: a description no changed spec names is
        // decoded when something asks for it (a one-flow rebuild of 30 flows spent 74 % of its
        // instructions decoding two descriptions its changed flow did not name; callgrind).
        if previous.cache != nil {
            let described = Set(toRead.compactMap { earlier[$0]?.openapi }.filter { !$0.isEmpty })
            if described.count <= 4 { APIDescriptionLoader.prefetch(Array(described)) }
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
                found[index] = Source(path: files[index], bytes: read.bytes, hash: read.hash, stat: stats[index] ?? "", previous: earlier[index])
            case .failure(let error):
                diagnostics.append(Diagnostic(.binaryFile, severity: .error, location: .start(of: files[index]), message: "cannot read the file: \(error)"))
            }
        }
        var sources: [Source] = []
        sources.reserveCapacity(found.count)
        for index in found.indices {
            if let source = found[index].take() { sources.append(source) }
        }
        return sources
    }

    /// Everything without a cache; otherwise changed files and the translation groups they touch
    /// (old and new ids), so switchers and corpus rules see them.
    func planParse(_ sources: [Source], _ previous: PreviousBuild) -> ParsePlan {
        guard let cache = previous.cache else { return ParsePlan(toParse: Set(sources.map(\.path)), parsedEarly: [:]) }
        var toParse = Set<String>()
        var parsedEarly: [String: ParseResult] = [:]
        var touchedGroups = Set<String>()
        var known = 0
        for index in sources.indices {
            guard let old = sources[index].previous?.record else {
                toParse.insert(sources[index].path)
                continue
            }
            known += 1
            if old.contentHash != sources[index].hash {
                toParse.insert(sources[index].path)
                touchedGroups.insert(old.groupKey)
            }
        }
        // Files the previous build had and this one has not (none when every entry was found:
        // paths are unique on both sides); the set is built only then.
        let currentPaths = known == cache.entries.count ? nil : Set(sources.map(\.path))
        func isCurrent(_ path: String) -> Bool { currentPaths?.contains(path) ?? true }
        if currentPaths != nil {
            for entry in cache.entries where !isCurrent(entry.path) { touchedGroups.insert(entry.groupKey) }
        }
        // New ids and groups of changed files need their parse; do it now.
        let changedSources = sources.filter { toParse.contains($0.path) }
        let changed = parse(changedSources)
        for (source, result) in zip(changedSources, changed) where parsedEarly[source.path] == nil { parsedEarly[source.path] = result }
        for result in changed {
            if let flow = result.flow { touchedGroups.insert(flow.translationOf ?? flow.id) }
        }
        if !touchedGroups.isEmpty {
            for entry in cache.entries where touchedGroups.contains(entry.groupKey) && !toParse.contains(entry.path) && isCurrent(entry.path) {
                toParse.insert(entry.path)
            }
        }
        // An id that collides with an unchanged flow: lint everything so the rule reports it.
        let changedIDs = changed.compactMap { $0.flow?.id }
        let changedIDSet = Set(changedIDs)
        var collides = changedIDSet.count != changedIDs.count
        if !changedIDSet.isEmpty, !collides {
            collides = cache.entries.contains { changedIDSet.contains($0.id) && !toParse.contains($0.path) && isCurrent($0.path) }
        }
        if collides { toParse = Set(sources.map(\.path)) }
        return ParsePlan(toParse: toParse, parsedEarly: parsedEarly)
    }

    /// Parses what the plan names (files parsed while planning are not parsed again), then lints
    /// the parsed flows together.
    func parseAndLint(_ sources: [Source], _ plan: ParsePlan, providers: ProviderCatalog) -> ParsedSpecs {
        let parseSources = sources.filter { plan.toParse.contains($0.path) }
        let remaining = parseSources.filter { plan.parsedEarly[$0.path] == nil }
        var parsedLate = Dictionary(zip(remaining.map(\.path), parse(remaining)), uniquingKeysWith: { first, _ in first })
        parsedLate.merge(plan.parsedEarly) { late, _ in late }
        let parsed = parseSources.map { parsedLate[$0.path]! }
        var flows: [Flow] = []
        var diagnostics: [Diagnostic] = []
        for result in parsed {
            diagnostics += result.diagnostics
            if let flow = result.flow { flows.append(flow) }
        }
        diagnostics += Linter(parser: parser, providers: providers).lint(flows: flows)
        var byFile: [String: [Diagnostic]] = [:]
        for diagnostic in diagnostics { byFile[diagnostic.location.file, default: []].append(diagnostic) }
        return ParsedSpecs(sources: parseSources, results: parsed, flows: flows, diagnostics: diagnostics, diagnosticsByFile: byFile)
    }

    /// Parses on all cores. The first flow that names an OpenAPI description has it decoded on
    /// another thread meanwhile: lint needs it, and decoding one is tens of milliseconds of
    /// OpenAPIKit's first-use work that would otherwise run alone between parsing and linting.
    func parse(_ sources: [Source]) -> [ParseResult] {
        let requested = Locked<Set<String>>([])
        return parser.parseAll(sources.map { (path: $0.path, bytes: $0.bytes) }) { result in
            guard let flow = result.flow, let written = flow.openapi,
                  case .success(let file) = APIDescriptionLoader.resolve(written, specFile: flow.file),
                  requested.withLock({ $0.insert(file).inserted })
            else { return }
            APIDescriptionLoader.prefetch([file])
        }
    }
}

/// The spec files a build reads, listed and stat'ed at one moment. `serve` takes one on every
/// poll to see whether a spec changed and hands the one that differed to the build, which then
/// neither lists nor stats the specs again (at 2 000 specs, a tenth of a warm rebuild).
public struct SpecSnapshot: Sendable, Equatable {
    /// The paths listed (files or folders).
    public let inputs: [String]
    /// The spec files under them, in build order, and each one's size and modification time
    /// (nil for a file that could not be stat'ed).
    public let files: [String]
    let stats: [String?]
    /// Inputs that do not exist or cannot be listed.
    let diagnostics: [Diagnostic]

    public static func take(_ inputs: [String]) -> SpecSnapshot {
        var diagnostics: [Diagnostic] = []
        let files = SpecFiles.expand(inputs, diagnostics: &diagnostics)
        return SpecSnapshot(inputs: inputs, files: files, stats: files.map(FileSystem.statSignature), diagnostics: diagnostics)
    }

    /// Same files with the same sizes and modification times (diagnostics follow from those).
    public static func == (lhs: SpecSnapshot, rhs: SpecSnapshot) -> Bool {
        lhs.inputs == rhs.inputs && lhs.files == rhs.files && lhs.stats == rhs.stats
    }
}
