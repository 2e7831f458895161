import ArgumentParser
import FlowSite

/// What `build` and `serve` both take to build the site: the specs, the output folder, the
/// configuration and the check results to show. One declaration, so the two commands cannot
/// drift apart in names, defaults or help.
struct SiteOptions: ParsableArguments {
    @Argument(help: "Spec files or directories (default: `flows` of site.yml, or flows/).")
    var paths: [String] = []

    @Option(name: .long, help: "Output folder (replaced as a whole; `serve` writes the same one).")
    var out: String = "site/_build"

    @Option(name: .long, help: "Site configuration (default: site/site.yml when it exists).")
    var config: String?

    @Option(name: .long, help: "Check results to show beside the specs: the JSON report of `flowspec check` (or a SiteResults file).")
    var results: String?

    /// The build options these arguments describe; `incremental` is false for `build --clean`.
    func buildOptions(incremental: Bool = true) throws -> SiteBuildOptions {
        SiteBuildOptions(
            inputs: paths, outputDirectory: out, configPath: config, results: try ResultsInput.option(results), incremental: incremental
        )
    }
}
