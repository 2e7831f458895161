import ArgumentParser
import FlowServe
import FlowSite
import FlowModel
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Preview the documentation site, rebuilding on change.",
        discussion: """
        Builds the site like `flowspec build`, serves it on http://127.0.0.1:8000/ and watches \
        the specs, site.yml, site/theme/, site/assets/ and the OpenAPI descriptions the flows \
        name: after each change the site is rebuilt (incrementally, in place) and open pages \
        reload themselves. Changes are seen within half a second (file events on Linux; on a \
        network share within 5 s). Lint errors are printed and the previous site stays served \
        until they are fixed. Ctrl-C stops.

        Examples:
          flowspec serve                       flows/ on http://127.0.0.1:8000/
          flowspec serve --port 9000 flows/    another port
          flowspec serve --results check.json  with the verdicts of a check run
        """
    )

    @OptionGroup var site: SiteOptions

    @Option(name: .long, help: "Address to listen on. Anything but loopback exposes the preview to the network.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on.")
    var port: Int = 8000

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        let options = try site.buildOptions()
        let server = SiteServer(options: options, host: host, port: port)
        do {
            try await server.run { Terminal.write($0) }
        } catch {
            Terminal.writeError("error: the preview server stopped: \(error)\n")
            throw ExitCode(CommandExit.unreachable)
        }
    }
}
