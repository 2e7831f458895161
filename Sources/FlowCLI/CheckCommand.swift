import ArgumentParser

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
