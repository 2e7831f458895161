import ArgumentParser

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
