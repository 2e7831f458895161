import FlowLint
import FlowModel
import FlowParser
import FlowSite
import Foundation
import Hummingbird
import Logging

/// `flowspec serve`: builds the site, serves it on 127.0.0.1, rebuilds when a spec, the
/// configuration or the theme changes, and makes open pages reload themselves after a
/// successful rebuild. Changes are found by comparing sizes and modification times; the
/// kernel's file events (`FolderWatch`) say when that comparison is worth making, and every
/// `fullCheckEvery` polls it is made anyway (a file system that sends no events, such as a
/// network share, is still seen, only later).
///
/// Pages are served from the same output folder `flowspec build` writes; the reload script is
/// injected into HTML responses only, so the built files stay exactly what `build` produces.
public struct SiteServer: Sendable {
    public var options: SiteBuildOptions
    public var host: String
    public var port: Int
    /// How often to look for changes.
    public var pollInterval: Duration

    /// Polls between two comparisons made without an event.
    static let fullCheckEvery = 10

    public static let reloadPath = "/__flowspec/reload.js"
    public static let versionPath = "/__flowspec/version"

    public init(options: SiteBuildOptions, host: String = "127.0.0.1", port: Int = 8000, pollInterval: Duration = .milliseconds(500)) {
        self.options = options
        self.host = host
        self.port = port
        self.pollInterval = pollInterval
    }

    /// Runs until interrupted (SIGINT/SIGTERM). `log` receives build results and the URL.
    public func run(log: @escaping @Sendable (String) -> Void) async throws {
        let state = ServerState()
        // Rebuilds start from what the last one left in memory and update the site in place.
        var remembering = options
        remembering.memory = SiteBuildMemory()
        let options = remembering
        let output = FileManager.default.currentDirectoryPath + "/" + options.outputDirectory
        let root = options.outputDirectory.hasPrefix("/") ? options.outputDirectory : output
        var seen = watch(descriptions: [])
        let first = rebuild(options, specs: seen.specs, log: log)
        seen.descriptions = Self.stamps(Self.named(first))
        // A first build with nothing changed decodes no description; the first edit would.
        SiteBuilder.prefetchDescriptions(first?.descriptions ?? [])
        let firstSeen = seen
        await state.finished(build: first)

        var logger = Logger(label: "flowspec-serve")
        logger.logLevel = .warning
        let app = Application(
            router: Self.router(root: root, state: state, logger: logger),
            configuration: .init(address: .hostname(host, port: port), serverName: "flowspec"),
            onServerRunning: { _ in log("Serving \(root) at http://\(host):\(port)/ (Ctrl-C stops)\n") },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            group.addTask {
                var last = first
                var recorded = firstSeen
                let events = FolderWatch()
                var eventsSeeAll = events?.watch(watchedPaths(descriptions: Self.named(first))) ?? false
                // The first poll compares without an event: a change between the first build and
                // the watches would otherwise wait for the next full check.
                var polls = Self.fullCheckEvery - 1
                while !Task.isCancelled {
                    try await Task.sleep(for: pollInterval)
                    polls += 1
                    let evented = events?.changed() ?? false
                    let due = polls % Self.fullCheckEvery == 0
                    if eventsSeeAll, !evented, !due { continue }
                    let current = watch(descriptions: Self.named(last))
                    // New folders (and a watch the kernel refused before) are watched after an
                    // event, or at a full check while events do not cover everything.
                    if let events, evented || (due && !eventsSeeAll) {
                        eventsSeeAll = events.watch(watchedPaths(descriptions: Self.named(last)))
                    }
                    guard current != recorded else { continue }
                    // The build reads the specs as this poll saw them: a change after it differs
                    // from what is recorded here, so the next poll rebuilds again.
                    let report = rebuild(options, specs: current.specs, log: log)
                    recorded = current
                    if let report, Self.named(report) != Self.named(last) { recorded.descriptions = Self.stamps(Self.named(report)) }
                    last = report ?? last
                    await state.finished(build: report)
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private func rebuild(_ options: SiteBuildOptions, specs: SpecSnapshot, log: @Sendable (String) -> Void) -> SiteBuildReport? {
        do {
            let started = ContinuousClock.now
            var options = options
            options.specs = specs
            let report = try SiteBuilder(options: options).build()
            let elapsed = (ContinuousClock.now - started).wholeMilliseconds
            if !report.diagnostics.isEmpty {
                log(DiagnosticPrinter.text(report.diagnostics, color: false))
            }
            if report.succeeded {
                log("Rebuilt in \(elapsed) ms: \(report.renderedPageCount) page\(report.renderedPageCount == 1 ? "" : "s") rendered, \(report.reusedPageCount) unchanged\n")
            } else {
                log("Not rebuilt: fix the errors above; still serving the previous site\n")
            }
            return report
        } catch {
            log("error: \(error)\n")
            return nil
        }
    }

    /// What the site is built from, as sizes and modification times: the specs (a snapshot the
    /// build then uses instead of listing and stat'ing them again), the configuration, theme and
    /// assets, and the OpenAPI descriptions and provider profiles the last build read.
    struct Watched: Sendable, Equatable {
        var specs: SpecSnapshot
        var site: String
        var descriptions: String
    }

    /// The files besides specs and site/ a build read: its flows' OpenAPI descriptions and the
    /// project's provider profiles.
    static func named(_ report: SiteBuildReport?) -> [String] {
        (report?.descriptions ?? []) + (report?.providerProfiles ?? [])
    }

    /// What the events must cover: the spec inputs, the configuration's folder, its theme and
    /// assets, the descriptions and profiles the last build read (not the output folder).
    func watchedPaths(descriptions: [String]) -> [String] {
        let config = options.configPath ?? "site/site.yml"
        let siteDirectory = PathText.folder(of: config)
        let site = siteDirectory.isEmpty ? "." : siteDirectory
        return SiteBuilder.specInputs(options) + [config, site + "/theme", site + "/assets"] + descriptions
    }

    func watch(descriptions: [String]) -> Watched {
        // The folders the build reads (site.yml's `flows` too), not only flows/.
        let specs = SpecSnapshot.take(SiteBuilder.specInputs(options))
        let config = options.configPath ?? "site/site.yml"
        var site = [config]
        let siteDirectory = PathText.folder(of: config)
        for directory in ["theme", "assets"] {
            let path = (siteDirectory.isEmpty ? "." : siteDirectory) + "/" + directory
            if let enumerator = FileManager.default.enumerator(atPath: path) {
                while let relative = enumerator.nextObject() as? String { site.append(path + "/" + relative) }
            }
        }
        return Watched(specs: specs, site: Self.stamps(site.sorted()), descriptions: Self.stamps(descriptions))
    }

    /// One line per file: its path, size and modification time, or that it is missing.
    static func stamps(_ paths: [String]) -> String {
        paths.map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return path + ":missing" }
            return "\(path):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: "\n")
    }

    /// Polls the version endpoint; reloads the page when a rebuild succeeded.
    static let reloadScript = """
    (function () {
      "use strict";
      var seen = null;
      function poll() {
        fetch("\(versionPath)", { cache: "no-store" })
          .then(function (r) { return r.text(); })
          .then(function (v) { if (seen === null) { seen = v; } else if (v !== seen) { window.location.reload(); } })
          .catch(function () {})
          .then(function () { setTimeout(poll, 1000); });
      }
      poll();
    })();

    """
}

/// The serving state shared by the watcher and the request handlers.
actor ServerState {
    private(set) var version = 0

    func finished(build: SiteBuildReport?) {
        if build?.succeeded == true { version += 1 }
    }
}
