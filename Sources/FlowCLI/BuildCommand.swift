import ArgumentParser

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "build", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
