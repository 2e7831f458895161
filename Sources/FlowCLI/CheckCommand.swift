import ArgumentParser
import FlowCheck
import FlowLint
import FlowMocks
import FlowModel
import Foundation

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run every scenario and token case of the specs against a backend, playing the identity provider each flow names.",
        discussion: """
        flowspec plays the client (it sends each step's http request and checks its expect \
        block) and the identity provider the flow's `provider:` names — apple, google, \
        microsoft, oidc, or a project's NAME.provider.yml next to the specs: a mock that serves \
        the profile's discovery document and JWKS, signs ID tokens with the profile's claims, \
        answers its token and revocation endpoints, and records every call the backend makes \
        to it. A flow without a provider starts none and generates no key.

        What runs:
          scenarios    every path through each flow's state machine (flow/path-N)
          token cases  for each row of a flow's token-rules table, every case of its
                       family (flow/rule/CASE, flow/rule/CASE[i] per variant), each
                       from a fresh sign-in
        UI-only, internal and response steps are reported as not executable, never as passed.

        Without --backend the embedded mock backend (derived from the specs) is started on \
        127.0.0.1 and checked; --defect breaks it on purpose to see the checker catch it. With \
        --backend, the provider URLs are printed at start: point the backend's provider \
        configuration (discovery document, or JWKS and token URLs) at them, and give its client \
        registration so its client authentication can be verified.

        Examples (each line shorter than 80 columns, so help never breaks a command):
          # all of flows/ against the embedded mock backend
          flowspec check
          # watch one defect get caught
          flowspec check --defect skip-nonce --case C12
          # a live backend, with JUnit, JSON and job-summary reports
          flowspec check --backend http://127.0.0.1:8080 --provider-port 9999 \\
              --registration clients.json --report junit:out/junit.xml \\
              --report json:out/check.json --report markdown:out/summary.md
          # a backend in a container reaching the mock provider on the host
          flowspec check --flow google-sign-in-web --backend http://127.0.0.1:8080 \\
              --provider-host 0.0.0.0 --provider-port 9999 \\
              --provider-url http://host.docker.internal:9999 \\
              --registration google-client.json
          # one slice of a CI matrix, then the shards merged
          flowspec check --shard 2/4 --report json:shard2.json
          flowspec check --merge shard*.json --report junit:all.xml
          # a GitHub job summary linking to the published site
          flowspec check --report markdown:$GITHUB_STEP_SUMMARY \\
              --site-url https://example.github.io/flows/

        A registration file is JSON, one object or an array: {"provider", "client_id", \
        "client_secret_env" | "client_secret_file" | "public_key_pem" | "public_key_file", \
        "team_id", "key_id" (Apple), "redirect_uri"}. Secrets are read from the environment or \
        a file and never printed.

        Exit status: 0 all passed, 1 failures, 2 bad input (spec lint errors, arguments, \
        registration), 3 backend unreachable or a server could not start.
        """
    )

    @Argument(help: "Spec files or directories (default: flows/).")
    var paths: [String] = []

    @Option(help: ArgumentHelp("Base URL of the backend under test. Default: the embedded mock backend.", valueName: "url"))
    var backend: String?

    @Option(name: .customLong("flow"), help: ArgumentHelp("Only this flow id (repeatable).", valueName: "id"))
    var flows: [String] = []

    @Option(name: .customLong("case"), help: ArgumentHelp("Only items matching this id: flow/path-2, flow/nonce/C12, S3, S3[1], path-2 (repeatable).", valueName: "id"))
    var cases: [String] = []

    @Option(help: ArgumentHelp("Seconds allowed for each request, connect to last byte.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(help: ArgumentHelp("Items run at the same time (default: one more than the cores against the embedded backend, \(CheckConcurrency.liveBackend) with --backend).", valueName: "n"))
    var concurrency: Int?

    @Option(help: ArgumentHelp("Run only the I-th of N deterministic slices (1-based), e.g. 2/4.", valueName: "I/N"))
    var shard: String?

    @Option(name: .customLong("report"), help: ArgumentHelp("Write a report: json:PATH, junit:PATH or markdown:PATH (repeatable).", valueName: "format:path"))
    var reports: [String] = []

    @Option(help: ArgumentHelp("Where the site is published, for the Markdown report's links to steps (default: site/_build/).", valueName: "url"))
    var siteURL: String = MarkdownReport.defaultSiteURL

    @Option(help: ArgumentHelp("Port of the mock provider (default: any free port); a second provider takes the next port.", valueName: "port"))
    var providerPort: Int = 0

    @OptionGroup(title: "Where the mock providers listen")
    var address: ProviderAddressOptions

    @OptionGroup(title: "The backend's client registrations")
    var registrations: RegistrationOptions

    @Option(name: .customLong("defect"), help: ArgumentHelp("Inject a defect into the embedded mock backend (repeatable; not with --backend).", valueName: "name"))
    var defects: [String] = []

    @Option(name: .customLong("merge"), parsing: .upToNextOption, help: ArgumentHelp("Merge these JSON shard reports into the --report outputs instead of running.", valueName: "json"))
    var merge: [String] = []

    func validate() throws {
        if timeout <= 0 { throw ValidationError("--timeout must be positive") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if let shard, Shard(parsing: shard) == nil { throw ValidationError("--shard must be I/N with 1 ≤ I ≤ N, e.g. 2/4") }
        for report in reports where ReportTarget(parsing: report) == nil {
            throw ValidationError("--report \(report): expected json:PATH, junit:PATH or markdown:PATH")
        }
        if !(0...65535).contains(providerPort) { throw ValidationError("--provider-port must be 0…65535") }
        if backend != nil, !defects.isEmpty { throw ValidationError("--defect only applies to the embedded mock backend (no --backend)") }
        if let backend {
            guard let url = URL(string: backend), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("--backend \(backend): expected an http(s) URL")
            }
        }
        if !merge.isEmpty, reports.isEmpty { throw ValidationError("--merge needs at least one --report to write") }
        let known = Set(Defect.allCases.map(\.rawValue))
        for defect in defects where !known.contains(defect.lowercased()) {
            throw ValidationError("unknown defect \(defect); known: \(Defect.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        Allocator.returnFreedMemoryPromptly()
        let code = await CheckCLI.execute(self, console: Console.standardOutput())
        if code != 0 { throw ExitCode(code) }
    }
}

/// The library entry point of `flowspec check` (used by tests and by the command).
public enum CheckCLI {
    /// Parses `arguments` (without the `check` word) and runs; returns the exit code.
    public static func run(arguments: [String], console: Console) async -> Int32 {
        let command: CheckCommand
        do {
            command = try CheckCommand.parse(arguments)
        } catch {
            console.line(CheckCommand.fullMessage(for: error))
            return CommandExit.badInput
        }
        return await execute(command, console: console)
    }

    /// Spec files linted and planned at a time: enough for the parser to keep every core busy,
    /// few enough to be small next to a round (a parsed flow is about 30 KB).
    static let lintBatch = 16

    static func execute(_ command: CheckCommand, console: Console) async -> Int32 {
        let reports = command.reports.compactMap(ReportTarget.init(parsing:)).map { target in
            var target = target
            target.siteURL = command.siteURL
            return target
        }
        if !command.merge.isEmpty {
            return mergeReports(command.merge, into: reports, console: console)
        }
        let registrations: [ClientRegistration]
        do {
            registrations = try command.registrations.load()
        } catch {
            console.line("error: \(error)")
            return CommandExit.badInput
        }
        let linter = Linter()
        var configuration = CheckConfiguration(
            backendURL: command.backend, timeout: command.timeout, concurrency: command.concurrency,
            planner: Planner(flowFilter: command.flows, caseFilter: command.cases, shard: command.shard.flatMap(Shard.init(parsing:))),
            reports: reports, providerPort: command.providerPort, providerHost: command.address.providerHost,
            providerURL: command.address.advertisedURL, registrations: registrations, defects: command.defects)
        configuration.parser = linter.parser
        // Linted and planned a batch of specs at a time: a run in rounds parses each round's
        // flows again (`RunPlan`), so neither the lint nor the run holds the whole input.
        var plan: RunPlan.Builder?
        var planning = true
        var known = Set<String>()
        let run = linter.lint(paths: SpecPaths.resolve(command.paths), inBatchesOf: Self.lintBatch) { batch in
            known.formUnion(batch.flows.map(\.id))
            // Specs with errors are not planned: the run stops below.
            guard planning, !batch.hasErrors else {
                planning = false
                return
            }
            if plan == nil {
                configuration.planner.providers = batch.providers
                plan = CheckSession.planBuilder(configuration)
            }
            plan?.add(batch.flows)
        }
        if run.hasErrors {
            // Line by line: the console escapes control characters in a line, newlines included.
            let report = DiagnosticPrinter.text(run.diagnostics.filter { $0.severity == .error }, color: false)
            for line in report.split(separator: "\n", omittingEmptySubsequences: false).dropLast(report.hasSuffix("\n") ? 1 : 0) {
                console.line(String(line))
            }
            console.line("error: the specs have lint errors; fix them before checking (flowspec lint)")
            return CommandExit.badInput
        }
        guard let plan, !known.isEmpty else {
            console.line("error: no flow specs found under \(SpecPaths.described(command.paths))")
            return CommandExit.badInput
        }
        for id in command.flows where !known.contains(id) {
            console.line("error: --flow \(id): no such flow (known: \(known.sorted().joined(separator: ", ")))")
            return CommandExit.badInput
        }
        let outcome = await CheckSession.run(plan: plan.finish(), configuration: configuration, console: console)
        return outcome.exitCode
    }

    static func mergeReports(_ paths: [String], into targets: [ReportTarget], console: Console) -> Int32 {
        var reports: [CheckReport] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                console.line("error: --merge \(path): cannot read the file")
                return CommandExit.badInput
            }
            do { reports.append(try JSONReport.decode(data, path: path)) } catch {
                console.line("error: \(error)")
                return CommandExit.badInput
            }
        }
        do {
            let merged = try JSONReport.merge(reports)
            try merged.write(to: targets)
            console.summary(merged)
            for target in targets { console.line("report: \(target)") }
            return merged.exitCode
        } catch {
            console.line("error: \(error)")
            return CommandExit.badInput
        }
    }
}


