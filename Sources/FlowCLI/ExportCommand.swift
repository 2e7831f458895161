import ArgumentParser

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "(not yet implemented)")
    func run() throws { throw ExitCode(2) }
}
