import ArgumentParser

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
