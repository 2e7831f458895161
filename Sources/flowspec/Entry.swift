import FlowCLI

/// The thin executable: everything lives in FlowCLI so it can be tested.
@main
struct Entry {
    static func main() async {
        await FlowspecCommand.mainSuggestingCommands()
    }
}
