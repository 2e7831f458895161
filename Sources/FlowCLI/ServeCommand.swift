import ArgumentParser

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
