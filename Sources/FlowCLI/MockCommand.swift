import ArgumentParser

struct MockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mock", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
